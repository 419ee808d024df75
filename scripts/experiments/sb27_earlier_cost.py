"""A turn's earlier-segments read: label only (Segments.index, as at 453f1c1 — the method is unchanged) vs
label + the recalled facts' segments (Segments.earlier), one statement each; SQLite file and PostgreSQL.

100 archived segments of the wife (20 under household.shopping, 80 under chat) x 20 facts each, the 12
facts a turn recalls (hash embedder) computed once per query outside the timing; the two reads alternate.
Run: PYTHONPATH=. .venv/bin/python scripts/experiments/sb27_earlier_cost.py"""

import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tests.pg_support import PostgresServer

from shitsuji.context import Segments
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, NewMemory, memory_store
from shitsuji.store import database

WORDS = "plumber kitchen sink tea milk train school doctor garden paint bike rent movie cake dog cat piano rice fish car"


def run(url: str, name: str) -> None:
    db = database(url)
    segments = Segments(db)
    db.ensure(MEMORY_SCHEMA)
    memory = MemoryEngine(memory_store(db), HashEmbedder())
    words, items = WORDS.split(), []
    for n in range(100):
        c, label = f"c{n}", "household.shopping" if n % 5 == 0 else "chat"
        asyncio.run(segments.open_segment(c, "futari", "wife", label, []))
        asyncio.run(segments.close_segment(c, [{"role": "user", "content": f"talk {n}"}]))
        for t in range(20):
            items.append(
                NewMemory(
                    content=f"fact {n}-{t} about {words[(n + t) % 20]} and {words[(n * t) % 20]}",
                    scope="household/futari/user/wife",
                    category="event",
                    source="imported",
                    provenance={"conversation": c, "segment": label},
                )
            )
    memory.add_many(items)
    memory.index_pending()
    pools = [memory.recall(f"the {q}", "household/futari/user/wife", k=12) for q in words * 2]
    for label in ("household.shopping", "household.recipes"):
        base, new, listed = [], [], []
        for _ in range(5):
            for hits in pools:
                t = time.perf_counter()
                segments.index("futari", "wife", label=label, limit=5)
                base.append(time.perf_counter() - t)
                t = time.perf_counter()
                listed.append(len(segments.earlier("futari", "wife", label=label, hits=hits, limit=5)))
                new.append(time.perf_counter() - t)
        b, e = statistics.median(base) * 1000, statistics.median(new) * 1000
        print(
            f"{name} label={label}: index p50 {b:.2f} ms, earlier p50 {e:.2f} ms, ratio {e / b:.2f}, "
            f"listed median {statistics.median(listed)}; load {os.getloadavg()[0]:.1f}"
        )
    db.close()


tmp = Path(tempfile.mkdtemp())
run(str(tmp / "app.db"), "sqlite")
server = PostgresServer(tmp / "pg")
try:
    with server.database() as url:
        run(url, "postgresql")
finally:
    server.stop()
    shutil.rmtree(tmp, ignore_errors=True)
