"""Issue 23 (ja23b): `bench japanese`'s engine with e5 and recall's versions rule at several
``close_cosine`` values — why `--embedder e5` scored 0.357 on ja-fresh (docs/benchmarks.md).

    .venv/bin/python scripts/experiments/ja23b_e5_close_cosine.py src/shitsuji/bench/data/ja-fresh 0.6 0.9 0.95
"""

import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from shitsuji.bench.japanese import HOUSEHOLD, NOW, _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import MemoryEngine, NewMemory, open_store
from shitsuji.memory._embedders import load_embedder
from shitsuji.memory._recall import RecallWeights

d = Path(sys.argv[1])
cc = [float(x) for x in sys.argv[2:]]
facts = _jsonl(d / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
queries = _jsonl(d / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
model = load_embedder("e5")
with tempfile.TemporaryDirectory() as tmp:
    store = open_store(Path(tmp) / "b.db")
    engine = MemoryEngine(store, model, clock=lambda: NOW)
    fm = {}
    for f in facts:
        scope = HOUSEHOLD if f.get("shared") else f"{HOUSEHOLD}/user/{f['user']}"
        r = engine.remember(
            f["content"],
            scope,
            category=f.get("category", "misc"),
            created_at=NOW - timedelta(days=float(f.get("days_ago", 0))),
        )
        fm[r.memory.id] = f["id"]
    users = sorted({q["user"] for q in queries})
    engine.add_many(
        NewMemory(content=t, scope=f"{HOUSEHOLD}/user/{u}", created_at=NOW - timedelta(days=i % 400))
        for u in users
        for i, t in enumerate(synthetic_memories(200, seed=len(u)))
    )
    engine.index_pending()
    for c in cc:
        e = MemoryEngine(store, model, clock=lambda: NOW, weights=RecallWeights(close_cosine=c))
        hits = 0
        for q in queries:
            found = e.recall(q["query"], f"{HOUSEHOLD}/user/{q['user']}", k=3)
            hits += bool({fm.get(h.memory.id) for h in found} & set(q["expected"]))
        print(d.name, "e5 close_cosine", c, "hit@3", round(hits / len(queries), 3), flush=True)
