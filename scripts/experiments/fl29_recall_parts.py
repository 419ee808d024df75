"""CPU ms a recall of each step of ``MemoryEngine.recall`` (and the floor's), in situ: ``bench latency``'s
loop (recall, floor, in turn) on a copy of the kept 100k fill, each step wrapped by a CPU timer
(``time.thread_time``; the product's second BLAS thread is not counted — compare steps, not totals).

    PYTHONPATH=<tree>/src python scripts/experiments/fl29_recall_parts.py COPY_OF_BENCH.db 200
"""
import json
import os
import statistics
import sys
import time

import numpy as np
from collections import defaultdict

from shitsuji.bench.latency import SCOPE, _exact_floor, synthetic_queries
from shitsuji.memory import MemoryEngine, _engine, _rank, _slots, _sqlite_store, load_embedder, open_store

spent: dict[str, float] = defaultdict(float)


def timed(owner, name, label):  # type: ignore[no-untyped-def]
    plain = getattr(owner, name)

    def wrapper(*a, **kw):  # type: ignore[no-untyped-def]
        t = time.thread_time()
        try:
            return plain(*a, **kw)
        finally:
            spent[label] += time.thread_time() - t

    setattr(owner, name, wrapper)


timed(_engine, "question_vector", "question_vector")
timed(_engine, "top_hits", "top_hits")
timed(_rank, "_ranked", "top_hits._ranked")
timed(_rank.Bounds, "of", "top_hits.Bounds.of")
timed(_rank.RowFacts, "learn", "top_hits.learn")
timed(_sqlite_store.SQLiteMemoryStore, "memories_with_vectors", "top_hits.rows")
timed(_sqlite_store.SQLiteMemoryStore, "candidates", "candidates")
timed(_sqlite_store.SQLiteMemoryStore, "_keyword_search", "candidates.keyword")
timed(_engine, "query_terms", "query_terms")
timed(_sqlite_store.SQLiteMemoryStore, "_synced_vectors", "candidates.vector_sync")
timed(_sqlite_store.SQLiteMemoryStore, "_sync_keywords", "candidates.keyword.sync")
plain_best = _slots.Slots.best_per_memory


def best(self, scores, mask, limit):  # type: ignore[no-untyped-def]
    t = time.thread_time()
    try:
        return plain_best(self, scores, mask, limit)
    finally:
        spent[f"best_per_memory {scores.dtype}"] += time.thread_time() - t


_slots.Slots.best_per_memory = best  # type: ignore[method-assign]
timed(_slots, "top_slots", "top_slots (both lists)")
store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
floor = _exact_floor(engine, k=10)
floor_matrix = floor.__closure__[[c.cell_contents.__class__.__name__ for c in floor.__closure__].index("ndarray")].cell_contents
per: dict[str, list[float]] = defaultdict(list)
for q in synthetic_queries(int(sys.argv[2])):
    spent.clear()
    t = time.thread_time()
    engine.recall(q, SCOPE, k=10)
    spent["recall"] = time.thread_time() - t
    t = time.thread_time()
    floor(q)
    spent["floor"] = time.thread_time() - t
    t = time.thread_time()
    scores = floor_matrix @ engine.embedder.embed_query(q)
    t1 = time.thread_time()
    np.argpartition(-scores, 10)[:10]
    spent["floor.product+embed (again)"] = t1 - t
    spent["floor.argpartition (again)"] = time.thread_time() - t1
    for k, v in spent.items():
        per[k].append(v * 1000)
out = {k: round(statistics.median(v), 3) for k, v in sorted(per.items())}
out["load"] = round(os.getloadavg()[0], 1)
print(json.dumps(out))
