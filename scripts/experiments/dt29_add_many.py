"""CPU of ``MemoryEngine.add_many`` alone (the rows' write path: secrets masked, dedupe reads, terms, the
``about`` spans on this branch, the insert; no embedding) for ``bench latency``'s synthetic memories, into a
fresh SQLite file; median of ``rounds``.

    PYTHONPATH=<tree>/src python scripts/experiments/dt29_add_many.py N ROUNDS
"""
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._engine import NewMemory
from shitsuji.store import close_databases

n, rounds = int(sys.argv[1]), int(sys.argv[2])
texts = list(synthetic_memories(n))
cpu, wall = [], []
for _ in range(rounds):
    with tempfile.TemporaryDirectory() as d:
        store = open_store(str(Path(d) / "m.db"))
        engine = MemoryEngine(store, HashEmbedder())
        t0, p0 = time.perf_counter(), time.process_time()
        engine.add_many(NewMemory(content=t, scope="bench/latency") for t in texts)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - p0)
        store.close()
        close_databases()
print(json.dumps({"n": n, "cpu_ms_per_memory": round(statistics.median(cpu) * 1000 / n, 4),
                  "rows_per_cpu_s": round(n / statistics.median(cpu)), "rows_per_wall_s": round(n / statistics.median(wall))}))
