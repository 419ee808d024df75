"""fx26: FOLD_SCOPES_SQL 80f9406 vs fold_sql, custom and generic plans, on a table analyzed before a 12,000-row load. Run: cp scripts/experiments/fx26_fold_timing.py tests/test_zz_fx26_time.py && .venv/bin/pytest -q -s tests/test_zz_fx26_time.py; rm tests/test_zz_fx26_time.py"""

import time
from pathlib import Path

from shitsuji.memory._pg_term_deltas import FOLD_ROWS, FOLD_SCOPES_SQL
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

OLD = """
    WITH many AS (
        SELECT m.scope, m.term FROM memory_term_stats m WHERE m.scope = ANY(%(scopes)s)
        GROUP BY m.scope, m.term HAVING count(*) > %(rows)s
    ), locked AS (
        SELECT s.ctid AS place FROM memory_term_stats s
        WHERE s.scope = ANY(%(scopes)s) AND (s.scope, s.term) IN (SELECT * FROM many)
        ORDER BY s.scope, s.term, s.ctid FOR UPDATE SKIP LOCKED
""" + FOLD_SCOPES_SQL[FOLD_SCOPES_SQL.index("    ), folded AS (") :]


def test_time(pg_url: str) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db)
    with store.write() as tx:
        tx.execute(
            "INSERT INTO memory_term_stats (scope, term, chunks) SELECT 'small', 'u' || i, 1 FROM generate_series(1, 50) i"
        )
    db.execute("ANALYZE memory_term_stats")
    with store.write() as tx:
        tx.execute(
            "INSERT INTO memory_term_stats (scope, term, chunks) SELECT 'big', 't' || (i % 300), 1 FROM generate_series(1, 12000) i"
        )
    for mode in ("force_custom_plan", "force_generic_plan"):
        for name, sql in (("old", OLD), ("new", FOLD_SCOPES_SQL)):
            with store.write() as tx:
                tx.conn.execute(f"SET LOCAL plan_cache_mode = {mode}")
                t0 = time.perf_counter()
                tx.conn.execute(sql, {"scopes": ["big"], "rows": FOLD_ROWS}, prepare=True)
                dt = time.perf_counter() - t0
                n = tx.conn.execute("SELECT count(*) FROM memory_term_stats WHERE scope='big'").fetchone()[0]
                print(mode, name, round(dt, 3), n, Path("/proc/loadavg").read_text().split()[0], flush=True)
            # put the rows back: delete and reinsert 40 rows a pair
            with store.write() as tx:
                tx.execute("DELETE FROM memory_term_stats WHERE scope = 'big'")
                tx.execute(
                    "INSERT INTO memory_term_stats (scope, term, chunks) SELECT 'big', 't' || (i % 300), 1 FROM generate_series(1, 12000) i"
                )
    db.close()
