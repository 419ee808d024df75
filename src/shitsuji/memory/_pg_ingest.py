"""Bulk writes of vectors on PostgreSQL: a batch's ``embeddings`` rows, and the HNSW graph built beside reads.

Why this module: a bulk load's batch spent most of its vector time in the ``embeddings`` upsert, and a
load that ends by building the graph held every search of its model for the whole build.

- **A batch's embeddings** (``write_embeddings``): measured one way against the others on the same
  server, taking turns batch by batch (``scripts/bench_pg_ingest.py embeddings``; docs/benchmarks.md,
  "Issue 25, in25b"): one ``INSERT … SELECT FROM unnest(…)`` was the slowest at every batch size (its
  ``bytea[]`` parameter is parsed as one array value); ``executemany`` (psycopg pipelines it) is the
  fastest for a handful of rows (one memory remembered in a chat), a ``DELETE`` of the batch's rows then
  a binary ``COPY`` for a hundred and more (2.4x the ``unnest`` at 1,000 rows). Both replace a row that
  is there, as the upsert did; the caller holds the ``memories`` rows' locks, so no other writer can
  put the same rows' vectors meanwhile.
- **The graph built concurrently** (``build_graph``): ``CREATE INDEX CONCURRENTLY`` on a connection
  of its own, outside any transaction. The rows it covers were moved into the graph (``graph =
  true``) in a short transaction that dropped the old index first, so that moving them cost no graph
  inserts (an ``UPDATE`` of the predicate's column makes every row a new HNSW insert, ~2 ms each).
  Until the build is done the graph's rows are searched without the index (exactly: the same query,
  scanned and sorted), and reads and writes of the table go on (the build takes a lock that only other
  builds and schema changes wait for). A process that dies during the build leaves an invalid index:
  the next background build (``_pg_graph_builds``: a writer's, ``serve``'s) drops it and builds again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ._pg_halfvec import GRAPH_OPCLASS

#: Below this many rows a batch's embeddings are written by ``executemany``, from it by ``DELETE`` +
#: binary ``COPY`` (the two cross between 10 and 100 rows: docs/benchmarks.md, "Issue 25, in25b").
COPY_MIN = 32
#: One graph build at a time per database: the fold's move and a build (or a repair) exclude each other.
ADVISORY_BUILD = 0x5348_4742

_UPSERT = (
    "INSERT INTO embeddings (memory_rowid, model, dim, chunks, vectors, seq) VALUES (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (memory_rowid) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
    "chunks = excluded.chunks, vectors = excluded.vectors, seq = excluded.seq"
)


def write_embeddings(conn: Any, model_id: str, dim: int, rows: Sequence[tuple[int, int, bytes, int]]) -> None:
    """``embeddings`` rows (memory rowid, chunks, float32 bytes, seq) written or replaced, rowid order:
    the faster way for the batch's size."""
    ordered = sorted(rows)
    (upsert_embeddings if len(ordered) < COPY_MIN else copy_embeddings)(conn, model_id, dim, ordered)


def upsert_embeddings(
    conn: Any, model_id: str, dim: int, rows: Sequence[tuple[int, int, bytes, int]]
) -> None:
    """``write_embeddings`` one statement a row (``executemany``: psycopg pipelines them)."""
    with conn.cursor() as cur:
        cur.executemany(_UPSERT, [(r, model_id, dim, c, v, s) for r, c, v, s in rows])


def copy_embeddings(conn: Any, model_id: str, dim: int, rows: Sequence[tuple[int, int, bytes, int]]) -> None:
    """``write_embeddings`` by a ``DELETE`` of the rows there, then one binary ``COPY``."""
    conn.execute("DELETE FROM embeddings WHERE memory_rowid = ANY(%s)", ([r[0] for r in rows],))
    with (
        conn.cursor() as cur,
        cur.copy(
            "COPY embeddings (memory_rowid, model, dim, chunks, vectors, seq) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy,
    ):
        copy.set_types(["int8", "text", "int8", "int8", "bytea", "int8"])
        for rowid, chunks, blob, seq in rows:
            copy.write_row((rowid, model_id, dim, chunks, blob, seq))


def memory_mb(rows: int, dim: int) -> int:
    """``maintenance_work_mem`` for a graph of ``rows`` vectors (~ vector + links a row), 64 MB to 1 GB."""
    return min(max(64, rows * (4 * dim + 400) // 2**20), 1024)


@contextmanager
def build_lock(conn: Any) -> Iterator[None]:
    """Hold the database's graph-build lock on ``conn`` (autocommit, no transaction open) for the block.

    Taken by polling, not by a waiting statement: a statement that waits keeps its snapshot, and a
    concurrent index build waits for every older snapshot — the two would wait for each other.
    """
    while not conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_BUILD,)).fetchone()[0]:
        time.sleep(0.2)
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))


def build_graph(conn: Any, name: str, create_sql: str, rows: int, dim: int) -> None:
    """Build ``name``'s graph index (``create_sql``, made concurrent here) beside reads and writes,
    unless a valid one is there (another process built it meanwhile).

    ``conn`` is an autocommit connection outside any transaction that holds ``build_lock``. The
    table's ``parallel_workers`` is set to the server's ``max_parallel_maintenance_workers`` for the
    build and reset after (the planner sizes a build's workers by the heap, which holds 512-d vectors
    out of line: too small to get any).
    """
    if name not in broken_graphs(conn):
        return
    conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}_hnsw")  # a build that died left it invalid
    conn.execute(f"SET maintenance_work_mem = '{memory_mb(rows, dim)}MB'")
    workers = build_workers(conn, name)
    try:
        conn.execute(create_sql.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1))
    finally:
        if workers > 0:
            conn.execute(f"ALTER TABLE {name} RESET (parallel_workers)")
        conn.execute("RESET maintenance_work_mem")


def build_workers(conn: Any, name: str) -> int:
    """Let the HNSW build of ``name`` use the server's parallel maintenance workers; how many.

    The planner sizes a build's workers by the table's heap, and pgvector keeps 512-d vectors
    out of line (TOAST): the heap of 50,000 rows is ~3 MB, under ``min_parallel_table_scan_size``,
    so the build ran on one core. The table's ``parallel_workers`` is set to the server's
    ``max_parallel_maintenance_workers`` (the operator's knob; 0 keeps the build serial) for the
    build only: the caller resets it after the build (before committing, inside a transaction). The graph is built in
    ``maintenance_work_mem`` shared by the workers (sized by the caller). 2.2x faster at 15,000
    rows on 2 cores (docs/benchmarks.md, "Issue 25: HNSW ingest, replica doctor").
    """
    workers = int(conn.execute("SELECT current_setting('max_parallel_maintenance_workers')").fetchone()[0])
    if workers > 0:
        conn.execute(f"ALTER TABLE {name} SET (parallel_workers = {workers})")
    return workers


#: The vector tables whose graph is pending: its index missing, invalid (a concurrent build that did not
#: finish) or not over half-precision vectors (built by a version from before ``_pg_halfvec``: the searches'
#: order cannot use it). One parameter, the graph's operator class (``GRAPH_OPCLASS``). The one rule both
#: ``broken_graphs`` and a store's opening (``_pg_graph_builds.UPKEEP_DUE``) ask.
BROKEN_GRAPHS_SQL = (
    "SELECT 'memory_vectors_' || m.rowid FROM memory_vector_models m "
    "LEFT JOIN pg_class c ON c.relname = 'memory_vectors_' || m.rowid || '_hnsw' "
    "LEFT JOIN pg_index i ON i.indexrelid = c.oid "
    "WHERE to_regclass('memory_vectors_' || m.rowid) IS NOT NULL AND (i.indisvalid IS NULL OR NOT i.indisvalid "
    "OR NOT EXISTS (SELECT 1 FROM pg_opclass o WHERE o.oid = ANY(i.indclass::oid[]) AND o.opcname = %s))"
)


def broken_graphs(conn: Any) -> list[str]:
    """Vector tables whose graph is pending (``BROKEN_GRAPHS_SQL``)."""
    rows = conn.execute(BROKEN_GRAPHS_SQL, (GRAPH_OPCLASS,)).fetchall()
    return [r[0] for r in rows]
