"""The vector tables keep a vector in its row: one page read per vector, not three.

Why: a 512-d ``vector`` is 2,052 bytes, and PostgreSQL moves a value out of a row (TOAST) once the row
passes ~2 KB (``TOAST_TUPLE_THRESHOLD``, 2,032 bytes) until the row fits ``toast_tuple_target`` (by
default that same 2 KB). pgvector's types are stored ``EXTERNAL`` (never compressed), so every vector
of ``memory_vectors_<n>`` went to the table's TOAST relation: reading one cost the heap page, the TOAST
index's leaf and one or two TOAST pages. A recall in a scope no query had read (at 1M memories over 10k
scopes the data is ~10 GB against 128 MB of ``shared_buffers``) read ~3 pages per vector of its scope
from outside the buffers: the exact scan of a 100-vector scope read ~300 pages (docs/benchmarks.md,
issue 25, tl25 and cs25).

**The setting**: a vector table is made ``WITH (toast_tuple_target = 8160)`` (the largest PostgreSQL
allows: a row's room on an 8 KB page). The toaster still runs for a row over 2 KB but stops moving
values out once the row fits 8,160 bytes, so a vector up to ~2,000 dimensions stays in its row (a
512-d row is ~2.1 KB: three to a page), and a larger one (3,072-d: 12 KB) still goes to TOAST as
before rather than failing. Nothing is compressed (the column stays ``EXTERNAL``; ``STORAGE MAIN``
would keep it in the row too, after trying to compress every row's vector on its write). The values
are the same float32s: no search, score or answer changes.

**Upgrading** (migration ``0022_cs25_inline_vectors``, PostgreSQL only): the setting is a catalog change
(``ALTER TABLE … SET``: no rewrite, a ``SHARE UPDATE EXCLUSIVE`` lock that reads and writes do not wait
for), so it costs the same at 1M rows as at none; from then on every vector written is stored in its
row. The rows already written stay in TOAST until they are written again — rewriting them in the
migration would rewrite the whole table in the upgrading transaction (at 1M, ~2 GB of vectors and
their indexes, with writers blocked behind it). So the migration notes, per table, the lowest and highest
``memory_rowid`` then stored (``memory_vector_inline``), and the background upkeep that builds pending
graphs (``_pg_graph_builds``: a writer's first write, ``serve``; ``reindex --graph-only`` too when a graph is
pending — a short command's exit cancels it, the next process goes on) rewrites the
rows up to that mark in batches of ``BATCH`` rowids, each batch its own short transaction with its
progress, so a process that stops leaves the rest to the next run. A batch skips rows a writer holds
(``SKIP LOCKED``: the upkeep never waits on a writer, so it can take part in no deadlock); such a row is
being written anew anyway, or stays in TOAST (read as before, only slower). A rewritten graph row is
inserted into its HNSW index again (a changed value is no HOT update): 477 s for a 52,000-row graph scope
under load, then the vacuum's graph repair. So a table with ``REBUILD_GRAPH_ROWS`` graph rows to rewrite
has its graph dropped first and built once after the rewrite (its scopes searched exactly meanwhile, as
after a bulk load).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

log = logging.getLogger(__name__)

#: A vector table's storage setting: vectors of up to ~2,000 dimensions stay in their row.
INLINE_WITH: Final = "toast_tuple_target = 8160"
#: Rowids a rewrite batch covers (at 100 a scope, one batch is ~2,000 rows, well under a second).
BATCH: Final = 2000
#: Graph rows waiting for the rewrite from which the graph is dropped and built again once after it
#: (as a bulk load does from ``REBUILD_MIN``): each rewritten row would otherwise be inserted into the
#: HNSW index again (477 s for a 52,000-row graph scope under load, then a vacuum's graph repair).
REBUILD_GRAPH_ROWS: Final = 2000

#: Migration ``0022_cs25_inline_vectors`` (PostgreSQL only): every vector table keeps new vectors in
#: their rows, and the rows stored before are noted for the background rewrite.
POSTGRES_INLINE_VECTORS: Final = rf"""
    CREATE TABLE memory_vector_inline ( /* keyed by table, no rowid */
        tbl TEXT PRIMARY KEY, next_rowid BIGINT NOT NULL, last_rowid BIGINT NOT NULL
    );
    DO $$
    DECLARE
        t text;
    BEGIN
        FOR t IN SELECT 'memory_vectors_' || rowid FROM memory_vector_models
                 WHERE to_regclass('memory_vectors_' || rowid) IS NOT NULL LOOP
            EXECUTE format('ALTER TABLE %I SET ({INLINE_WITH})', t);
            EXECUTE format(
                'INSERT INTO memory_vector_inline SELECT %L, a, z FROM '
                '(SELECT min(memory_rowid) AS a, max(memory_rowid) AS z FROM %I) x WHERE z IS NOT NULL', t, t);
        END LOOP;
    END
    $$;
"""

#: Whether rows written before the migration wait for their rewrite (``UPKEEP_DUE``'s third question).
REWRITE_DUE_SQL: Final = "SELECT 1 FROM memory_vector_inline"


def rewrites_left(conn: Any) -> int:
    """Rowids whose vector rows still wait for the rewrite, over every vector table (``shitsuji doctor``);
    0 before the migration too."""
    if conn.execute("SELECT to_regclass('memory_vector_inline')").fetchone()[0] is None:
        return 0
    row = conn.execute(
        "SELECT coalesce(sum(last_rowid - next_rowid + 1), 0) FROM memory_vector_inline"
    ).fetchone()
    return max(int(row[0]), 0)


def rewrite_old_rows(conn: Any, cancelled: Callable[[], bool]) -> int:
    """Rewrite, batch by batch, the rows each vector table held before the migration, so that their
    vectors move into the rows; the rows rewritten (``conn``: autocommit, the build lock held). A table
    with ``REBUILD_GRAPH_ROWS`` graph rows to rewrite has its graph dropped first (``DROP INDEX
    CONCURRENTLY``: readers and writers go on) — pending, its scopes searched exactly until the caller
    builds it again once the rows are rewritten."""
    done = 0
    for table, start, last in conn.execute(
        "SELECT tbl, next_rowid, last_rowid FROM memory_vector_inline"
    ).fetchall():
        if conn.execute("SELECT to_regclass(%s)", (f"{table}_hnsw",)).fetchone()[0] is not None and (
            conn.execute(
                f"SELECT count(*) FROM {table} WHERE graph AND memory_rowid BETWEEN %s AND %s", (start, last)
            ).fetchone()[0]
            >= REBUILD_GRAPH_ROWS
        ):  # pending from here (its scopes searched exactly); the caller builds it after the rewrite
            conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {table}_hnsw")
        while not cancelled():
            if start > last or conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
                conn.execute("DELETE FROM memory_vector_inline WHERE tbl = %s", (table,))
                break
            end = min(start + BATCH, last + 1)
            with conn.transaction():
                # the table's name is ours (``memory_vectors_<n>``), read back from the migration's row;
                # ``::real[]::vector`` makes a new value (the same floats): an unchanged one would keep
                # its TOAST pointer
                moved = conn.execute(
                    f"UPDATE {table} v SET embedding = v.embedding::real[]::vector FROM ("
                    f"SELECT memory_rowid, chunk FROM {table} WHERE memory_rowid >= %s AND memory_rowid < %s "
                    "FOR UPDATE SKIP LOCKED) s WHERE v.memory_rowid = s.memory_rowid AND v.chunk = s.chunk",
                    (start, end),
                ).rowcount
                conn.execute("UPDATE memory_vector_inline SET next_rowid = %s WHERE tbl = %s", (end, table))
            done += max(moved, 0)
            start = end
    if done:
        log.info("vector tables: %s rows rewritten with their vectors in the row", f"{done:,}")
    return done
