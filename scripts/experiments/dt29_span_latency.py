"""Recall CPU/wall of pooled LongMemEval dev's span questions (and as many others) on a kept SQLite file of the
pooled haystack (tm28's /tmp/tm28/lme_pooled.db, copied per side), median of ``passes`` per question.

    PYTHONPATH=<tree>/src python scripts/experiments/dt29_span_latency.py DATA.json DB PASSES [--fill]

``--fill`` (this branch only) first stores each row's ``about`` column (what ``reindex`` does, without
re-embedding): a file written before ``0028_dt29_about_spans`` holds NULL there and is read from its text.
"""
import json
import statistics
import sys
import time
from datetime import UTC
from pathlib import Path

from shitsuji.bench import longmemeval as lme
from shitsuji.memory import MemoryEngine, load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._when import asked_span

path, db, passes = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
questions = [q for q in lme.load(path) if not q["id"].endswith("_abs")]
clock = lme.AskedAt()
store = open_store(db)
if "--fill" in sys.argv:
    from shitsuji.memory._about import about_column

    rows = list(store.list_memories(None, include_deleted=True))
    store.set_about([(m.id, about_column(m)) for m in rows])  # type: ignore[attr-defined]
engine = MemoryEngine(store, load_embedder("use"), clock=clock)
scope = "bench/lme/pooled"
groups: dict[str, list] = {"span": [], "plain": []}
for q in questions:
    clock.now = q["asked"]
    groups["span" if asked_span(q["question"], clock(), UTC) else "plain"].append(q)
groups["plain"] = groups["plain"][: len(groups["span"])]
for q in groups["span"] + groups["plain"]:  # warm: vectors, caches
    clock.now = q["asked"]
    engine.recall(q["question"], scope, k=100)
out = {}
for name, qs in groups.items():
    cpu, wall = [], []
    for q in qs:
        clock.now = q["asked"]
        c, w = [], []
        for _ in range(passes):
            t0, p0 = time.perf_counter(), time.process_time()
            engine.recall(q["question"], scope, k=100)
            w.append(time.perf_counter() - t0)
            c.append(time.process_time() - p0)
        cpu.append(statistics.median(c) * 1000)
        wall.append(statistics.median(w) * 1000)
    cpu.sort()
    wall.sort()
    out[name] = {
        "n": len(qs),
        "cpu_p50": round(statistics.median(cpu), 2),
        "cpu_p95": round(cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))], 2),
        "wall_p50": round(statistics.median(wall), 2),
        "wall_p95": round(wall[min(len(wall) - 1, round(0.95 * (len(wall) - 1)))], 2),
        "cpu_sum": round(sum(cpu), 1),
    }
print(json.dumps(out))
store.close()
