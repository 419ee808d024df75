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
figures ``bench latency`` prints for them, with the connection's PRAGMAs read back (``--pragma
NAME=N``: a setting changed after opening). ``rows`` times recall's candidate-row read alone under
several settings, one connection each, read by read in turn (also on a ``bench scale`` fill)::

    python scripts/bench_sqlite_recall_kept.py rows /tmp/lat/bench.db --queries 800
"""

from __future__ import annotations

import argparse
import json
import os
import time

from shitsuji.bench._common import percentile
from shitsuji.bench.latency import SCOPE, recall_beside_floor, synthetic_memories
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


def recall(path: str, queries: int, embedder: str, pragmas: list[str]) -> dict[str, object]:
    store = open_store(path)
    for setting in pragmas:  # e.g. mmap_size=0: one setting put back to SQLite's default, to weigh it alone
        name, value = setting.split("=")
        database(path).execute(f"PRAGMA {name} = {int(value)}")
    engine = MemoryEngine(store, load_embedder(embedder))
    engine.recall("warm-up", SCOPE, k=10)
    recall_ms, floor_ms, recall_cpu, floor_cpu = recall_beside_floor(engine, queries)
    db = database(path)
    settings = {p: db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("mmap_size", "cache_size", "temp_store")}
    store.close()
    return {
        "pragmas": settings,
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


OFF = {"mmap_size": 0, "cache_size": -2000, "temp_store": 0}  # SQLite's defaults (main before sq25)


def rows(path: str, rounds: int, per_read: int) -> dict[str, object]:
    """Recall's candidate-row read alone (``get_many`` of ``per_read`` random ids of the scope) on a
    connection per setting — SQLite's defaults, our map, a 16 MB cache, smaller and larger maps — read
    by read in turn, each keeping its map and cache as a long-lived process does: CPU ms per read."""
    import random

    from shitsuji.memory import memory_store
    from shitsuji.store import open_database
    from shitsuji.store import sqlite_settings as settings

    kinds = {
        "defaults": OFF,
        "ours": {**OFF, **settings()},  # the map of this host (SQLite's default page cache)
        "map_1gb": {**OFF, "mmap_size": 1 << 30},
        "map_2gb": {**OFF, "mmap_size": 0x7FFF0000},  # SQLite's usual compile-time ceiling
        "cache_only": {**OFF, "cache_size": -16_384},  # a 16 MB page cache, no map
    }
    stores = {}
    for name, values in kinds.items():
        connection = open_database(path)  # a connection of its own: its map, its cache
        for pragma, value in values.items():
            connection.execute(f"PRAGMA {pragma} = {int(value)}")
        stores[name] = memory_store(connection)
    scope = database(path).execute("SELECT id FROM memories WHERE scope = ?", (SCOPE,)).fetchall()
    if not scope:  # a ``bench scale`` fill: a scope's rows are dealt evenly over the file, so are these
        scope = database(path).execute("SELECT id FROM memories").fetchall()
    ids = [row[0] for row in scope]
    rng = random.Random(5)
    cpu: dict[str, list[float]] = {name: [] for name in kinds}
    for i in range(rounds):
        for name, store in stores.items():
            wanted = rng.sample(ids, per_read)
            c0 = time.process_time()
            store.get_many(wanted)
            if i >= rounds // 10:  # the first tenth: each connection warms up
                cpu[name].append((time.process_time() - c0) * 1000)
    out: dict[str, object] = {f"{k}_cpu_p50_ms": round(percentile(v, 50), 3) for k, v in cpu.items()}
    out.update({f"{k}_cpu_p95_ms": round(percentile(v, 95), 3) for k, v in cpu.items()})
    out["load"] = round(os.getloadavg()[0], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("mode", choices=["fill", "recall", "rows"])
    parser.add_argument("db")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--pragma", action="append", default=[], help="NAME=INTEGER after opening")
    args = parser.parse_args()
    if args.mode == "fill":
        out = fill(args.db, args.n, args.embedder)
    elif args.mode == "rows":  # --queries: reads of each kind
        out = rows(args.db, args.queries, 113)
    else:
        out = recall(args.db, args.queries, args.embedder, args.pragma)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
