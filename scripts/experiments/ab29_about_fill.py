"""ab29 bench: store the dates of N rows from before 0028 (about NULL): fill_about (ab29) vs reindex (fada088).
usage: bench.py build DB N | fill DB | reindex DB EMBEDDER | count DB"""

import random
import sys
import time
from datetime import UTC, datetime, timedelta

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._embedders import BUILTIN_EMBEDDERS

mode, db = sys.argv[1], sys.argv[2]
if mode == "build":
    n = int(sys.argv[3])
    rnd = random.Random(7)
    words = ["Kyoto", "the dentist", "a new sofa", "the plumber", "京都", "歯医者", "新しいソファ", "配管工"]
    forms = [
        "Yesterday we went to {}",
        "We saw {} last week",
        "{} comes on 2026-12-04",
        "昨日{}に行った",
        "先週{}を見た",
        "{}は11月14日に来た",
        "{} is nice",
        "{}が好き",
    ]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    engine = MemoryEngine(open_store(db), HashEmbedder())
    items = [
        NewMemory(
            content=f"{rnd.choice(forms).format(rnd.choice(words))} #{i}",
            scope="household/futari",
            created_at=base + timedelta(minutes=17 * i),
            provenance={"zone": "Asia/Tokyo"},
        )
        for i in range(n)
    ]
    engine.add_many(items)
    engine.index_pending()
    engine.store.database.execute("UPDATE memories SET about = NULL")
    engine.store.close()
    sys.exit()
emb = HashEmbedder() if mode != "reindex" or sys.argv[3] == "hash" else BUILTIN_EMBEDDERS[sys.argv[3]]()
engine = MemoryEngine(open_store(db), emb)
t = time.perf_counter()
c = time.process_time()
if mode == "fill":
    engine.fill_about()
elif mode == "reindex":
    engine.reindex()
elif mode == "count":
    print("due", engine.store.count_about_due())
wall, cpu = time.perf_counter() - t, time.process_time() - c
left = engine.store.database.execute("SELECT count(*) FROM memories WHERE about IS NULL").fetchone()[0]
print(f"{mode} wall {wall:.2f}s cpu {cpu:.2f}s null_left {left}")
