"""Vectors kept in their rows of the vector tables, not in TOAST (``_pg_inline``, migration
``0022_cs25_inline_vectors``): a new table stores a 512-d vector in its row (one page read, not three),
a vector too large for a page still goes to TOAST rather than failing, and a database from before the
migration keeps working while its old rows are rewritten in the background, every value unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from shitsuji.cli._doctor_graphs import graph_checks
from shitsuji.config import Settings
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._pg_ingest import ADVISORY_BUILD
from shitsuji.memory._pg_inline import REBUILD_GRAPH_ROWS, rewrite_old_rows
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import close_pools, open_database

from .conftest import Clock

_MODEL = "random-512"


def _unit(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    v = rng.standard_normal((rows, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _toasted(conn: Any, table: str) -> tuple[int, int]:
    """(rows whose vector is in TOAST, rows) of a vector table."""
    row = conn.execute(
        f"SELECT count(*) FILTER (WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL), count(*) FROM {table}"
    ).fetchone()
    return int(row[0]), int(row[1])


def _stored(conn: Any, table: str) -> dict[int, bytes]:
    """Each row's vector as stored (pgvector's binary form), by (rowid, chunk)."""
    rows = conn.execute(f"SELECT memory_rowid, chunk, vector_send(embedding) FROM {table}").fetchall()
    return {(int(r[0]), int(r[1])): bytes(r[2]) for r in rows}


def _filled(pg_url: str, clock: Clock, count: int) -> dict[str, Any]:
    """``count`` memories in scope "s" with 512-d vectors (one or two chunks each); vectors by id."""
    rng = np.random.default_rng(25)
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    ids = [f"m{i:03d}" for i in range(count)]
    engine.add_many([NewMemory(content=f"note {mid}", scope="s", id=mid) for mid in ids])
    vectors = {mid: _unit(rng, 1 + i % 2, 512) for i, mid in enumerate(ids)}
    store.put_vectors(_MODEL, list(vectors.items()))
    store.close()
    close_pools()
    return vectors


def test_a_new_vector_table_keeps_a_512d_vector_in_its_row(pg_url: str, clock: Clock) -> None:
    vectors = _filled(pg_url, clock, 40)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert _toasted(conn, "memory_vectors_1") == (0, 60)  # before: (60, 60), each vector in TOAST
        stored = conn.execute(
            "SELECT m.id, v.chunk, vector_send(v.embedding) FROM memory_vectors_1 v "
            "JOIN memories m ON m.rowid = v.memory_rowid"
        ).fetchall()
    for mid, chunk, sent in stored:  # the same float32s
        assert np.array_equal(np.frombuffer(sent, dtype=">f4", offset=4), vectors[mid][chunk])


def test_a_vector_too_large_for_a_page_still_goes_to_toast(pg_url: str, clock: Clock) -> None:
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    try:
        MemoryEngine(store, HashEmbedder(), clock=clock).add_many(
            [NewMemory(content="a long one", scope="s", id="x")]
        )
        big = _unit(np.random.default_rng(3), 1, 3072)
        store.put_vectors("random-3072", [("x", big)])  # 12 KB: no page holds it
        with psycopg.connect(pg_url, autocommit=True) as conn:
            assert _toasted(conn, "memory_vectors_1") == (1, 1)
        assert np.array_equal(store.vectors_of("random-3072", ["x"])["x"], big[0])
    finally:
        store.close()


def test_a_database_from_before_has_its_old_rows_moved_into_their_rows(pg_url: str, clock: Clock) -> None:
    vectors = _filled(pg_url, clock, 40)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the database as b6d27b8 left it
        conn.execute("ALTER TABLE memory_vectors_1 RESET (toast_tuple_target)")
        conn.execute(
            "UPDATE memory_vectors_1 SET embedding = embedding::real[]::vector"
        )  # stored anew: TOAST
        conn.execute("DROP TABLE memory_vector_inline")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0022_cs25_inline_vectors'")
        assert _toasted(conn, "memory_vectors_1") == (60, 60)
        before = _stored(conn, "memory_vectors_1")
    with psycopg.connect(pg_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (ADVISORY_BUILD,))  # the upkeep waits for it
        store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))  # migrates: a setting, no rewrite
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                assert _toasted(conn, "memory_vectors_1") == (60, 60)
                assert conn.execute("SELECT next_rowid, last_rowid FROM memory_vector_inline").fetchall() == [
                    (1, 40)
                ]
            query = vectors["m007"][0]
            found = store.vector_search(_MODEL, query, ["s"], 5)  # the old rows read through TOAST
            assert found[0].memory_id == "m007"
            MemoryEngine(store, HashEmbedder(), clock=clock).add_many(
                [NewMemory(content="new", scope="s", id="new")]
            )
            store.put_vectors(_MODEL, [("new", _unit(np.random.default_rng(7), 1, 512))])  # starts the upkeep
            with psycopg.connect(pg_url, autocommit=True) as conn:
                assert _toasted(conn, "memory_vectors_1") == (60, 61)  # a vector written after: in its row
            (line,) = [
                c for c in graph_checks(Settings.from_env({}, database_url=pg_url)) if c.name == "vector rows"
            ]
            assert line.status == "warn" and "40 rowids" in line.detail  # shitsuji doctor
            holder.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))
            store.build_graphs()
            assert store.wait_for_graphs(600)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                assert _toasted(conn, "memory_vectors_1") == (0, 61)
                assert conn.execute("SELECT count(*) FROM memory_vector_inline").fetchone() == (0,)
                after = _stored(conn, "memory_vectors_1")
            assert all(
                c.name != "vector rows" for c in graph_checks(Settings.from_env({}, database_url=pg_url))
            )
            assert {key: after[key] for key in before} == before  # every value as it was
            assert store.vector_search(_MODEL, query, ["s"], 5) == found
        finally:
            store.close()


def test_the_rewrite_skips_a_row_a_writer_holds_and_never_waits(pg_url: str, clock: Clock) -> None:
    _filled(pg_url, clock, 40)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as a database from before the migration
        conn.execute("ALTER TABLE memory_vectors_1 RESET (toast_tuple_target)")
        conn.execute("UPDATE memory_vectors_1 SET embedding = embedding::real[]::vector")  # anew: in TOAST
        conn.execute("ALTER TABLE memory_vectors_1 SET (toast_tuple_target = 8160)")
        conn.execute("INSERT INTO memory_vector_inline VALUES ('memory_vectors_1', 1, 40)")
        assert _toasted(conn, "memory_vectors_1") == (60, 60)
    with psycopg.connect(pg_url) as writer, psycopg.connect(pg_url, autocommit=True) as conn:
        writer.execute(
            "SELECT 1 FROM memory_vectors_1 WHERE memory_rowid = 5 FOR UPDATE"
        )  # held, not committed
        conn.execute("SET lock_timeout = '5s'")  # a rewrite that waited would fail here
        assert rewrite_old_rows(conn, lambda: False) == 59
        writer.rollback()
        assert _toasted(conn, "memory_vectors_1") == (1, 60)  # the held row as it was: read as before
        assert conn.execute("SELECT count(*) FROM memory_vector_inline").fetchone() == (0,)


def test_a_graph_with_many_old_rows_is_built_again_not_fed_row_by_row(pg_url: str, clock: Clock) -> None:
    count = REBUILD_GRAPH_ROWS
    rng = np.random.default_rng(26)
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    ids = [f"g{i:05d}" for i in range(count)]
    MemoryEngine(store, HashEmbedder(), clock=clock).add_many(
        [NewMemory(content=f"n {m}", scope="g", id=m) for m in ids]
    )
    vectors = {mid: _unit(rng, 1, 512) for mid in ids}
    store.put_vectors(_MODEL, list(vectors.items()))
    store.close()
    close_pools()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # a graph scope of a database from before
        conn.execute("UPDATE memory_vectors_1 SET graph = true")
        conn.execute("INSERT INTO memory_graph_scopes (model, scope) VALUES (%s, 'g')", (_MODEL,))
        conn.execute("ALTER TABLE memory_vectors_1 RESET (toast_tuple_target)")
        conn.execute("UPDATE memory_vectors_1 SET embedding = embedding::real[]::vector")  # anew: in TOAST
        conn.execute("ALTER TABLE memory_vectors_1 SET (toast_tuple_target = 8160)")
        conn.execute("INSERT INTO memory_vector_inline VALUES ('memory_vectors_1', 1, %s)", (count,))
        graph = conn.execute("SELECT to_regclass('memory_vectors_1_hnsw')::oid").fetchone()[0]
        assert graph is not None and _toasted(conn, "memory_vectors_1") == (count, count)
        before = _stored(conn, "memory_vectors_1")
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    try:
        store.build_graphs()
        assert store.wait_for_graphs(600)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            assert _toasted(conn, "memory_vectors_1") == (0, count)
            assert _stored(conn, "memory_vectors_1") == before
            built = conn.execute(
                "SELECT c.oid, i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
                "WHERE c.relname = 'memory_vectors_1_hnsw'"
            ).fetchone()
            assert built[1] and built[0] != graph  # on 6e9f104 the same index, fed each rewritten row
        assert store.vector_search(_MODEL, vectors["g00042"][0], ["g"], 3)[0].memory_id == "g00042"
    finally:
        store.close()
