"""The top 10 (ids and scores) of the first N ``bench latency`` queries on a fixed clock, as JSON, and how
many candidate rows recall read (``memories_with_vectors`` calls and ids) — run it on two trees and compare.

    PYTHONPATH=<tree>/src python scripts/experiments/fl27_same_answers.py COPY_OF_BENCH.db 200 OUT.json
"""
import json
import statistics
import sys
from datetime import UTC, datetime

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store

store = open_store(sys.argv[1])
fixed = datetime(2026, 12, 6, tzinfo=UTC)
engine = MemoryEngine(store, load_embedder("use"), clock=lambda: fixed)
reads: list[list[int]] = []
plain = store.memories_with_vectors


def counted(ids, model):  # type: ignore[no-untyped-def]
    reads[-1].append(len(ids))
    return plain(ids, model)


store.memories_with_vectors = counted  # type: ignore[method-assign]
answers = []
for q in synthetic_queries(int(sys.argv[2])):
    reads.append([])
    answers.append([(h.memory.id, h.score) for h in engine.recall(q, SCOPE, k=10)])
with open(sys.argv[3], "w") as f:
    json.dump(answers, f)
rows = [sum(r) for r in reads]
calls = [len(r) for r in reads]
print(json.dumps({
    "rows_read_median": statistics.median(rows), "rows_read_max": max(rows), "rows_read_min": min(rows),
    "calls_median": statistics.median(calls), "calls_max": max(calls),
    "recalls_with_2plus_calls": sum(c > 1 for c in calls),
}))
