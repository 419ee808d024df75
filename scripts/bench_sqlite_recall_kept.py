"""``bench latency``'s recall beside its exact floor, on a 100k store filled once and kept.

``shitsuji bench latency --n 100000`` embeds 100,000 memories before it times a recall (minutes of
CPU); to compare two builds of shitsuji, or two sets of SQLite connection settings, side by side on
the same data, fill once, copy the file per run and time only the recalls::

    python scripts/bench_sqlite_recall_kept.py fill /tmp/lat/bench.db --n 100000
    cp /tmp/lat/bench.db /tmp/lat/a.db && python scripts/bench_sqlite_recall_kept.py recall /tmp/lat/a.db
    cp /tmp/lat/bench.db /tmp/lat/b.db && PYTHONPATH=<main>/src python scripts/bench_sqlite_recall_kept.py recall /tmp/lat/b.db

The fill is ``bench latency``'s (the same synthetic memories, ``add_many`` + ``index_pending``, one
scope); ``recall`` opens the store afresh (a new process), recalls once to load the scope's index
(as ``bench latency`` does), then alternates a recall and the exact floor per query, and prints the
figures ``bench latency`` prints for them, with the connection's PRAGMAs read back.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from shitsuji.bench._common import percentile
from shitsuji.bench.latency import SCOPE, _exact_floor, synthetic_memories, synthetic_queries
from shitsuji.memory import MemoryEngine, NewMemory, load_embedder, open_store
from shitsuji.store import database


def fill(path: str, n: int, embedder: str) -> dict[str, object]:
    store = open_store(path)
    engine = MemoryEngine(store, load_embedder(embedder))
    t0 = time.perf_counter()
    engine.add_many(NewMemory(content=text, scope=SCOPE) for text in synthetic_memories(n))
    engine.index_pending()
    store.close()
    return {"memories": n, "fill_s": round(time.perf_counter() - t0, 1)}


def recall(path: str, queries: int, embedder: str) -> dict[str, object]:
    store = open_store(path)
    engine = MemoryEngine(store, load_embedder(embedder))
    engine.recall("warm-up", SCOPE, k=10)
    floor = _exact_floor(engine, k=10)
    recall_ms, floor_ms, recall_cpu, floor_cpu = [], [], [], []
    for query in synthetic_queries(queries):
        t0, c0 = time.perf_counter(), time.process_time()
        engine.recall(query, SCOPE, k=10)
        recall_ms.append((time.perf_counter() - t0) * 1000)
        c1 = time.process_time()
        recall_cpu.append((c1 - c0) * 1000)
        floor_ms.append(floor(query))
        floor_cpu.append((time.process_time() - c1) * 1000)
    db = database(path)
    pragmas = {p: db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("mmap_size", "cache_size", "temp_store")}
    store.close()
    return {
        "pragmas": pragmas,
        "recall_p50_ms": round(percentile(recall_ms, 50), 2),
        "recall_p95_ms": round(percentile(recall_ms, 95), 2),
        "exact_floor_p50_ms": round(percentile(floor_ms, 50), 2),
        "exact_floor_p95_ms": round(percentile(floor_ms, 95), 2),
        "recall_over_floor_p95": round(percentile(recall_ms, 95) / percentile(floor_ms, 95), 2),
        "recall_cpu_p50_ms": round(percentile(recall_cpu, 50), 2),
        "exact_floor_cpu_p50_ms": round(percentile(floor_cpu, 50), 2),
        "recall_over_floor_cpu_p50": round(percentile(recall_cpu, 50) / percentile(floor_cpu, 50), 2),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("mode", choices=["fill", "recall"])
    parser.add_argument("db")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embedder", default="use")
    args = parser.parse_args()
    out = (
        fill(args.db, args.n, args.embedder)
        if args.mode == "fill"
        else recall(args.db, args.queries, args.embedder)
    )
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
