"""A scattered scope's vector rows gathered onto adjacent pages by the background upkeep (``_pg_gather``,
migration ``0025_cl26_scope_gather``): scopes written interleaved (one row a page) end three rows a page,
every vector as it was; the move skips a row a writer holds and never waits; beside a writer that
remembers and forgets in the same scopes no row is lost or left over.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
import psycopg

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._pg_gather import DUE_NEW, gather_table
from shitsuji.memory._pg_graph_builds import leftover_settings
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import close_pools, open_database

from .conftest import Clock

_MODEL = "random-512"
_TABLE = "memory_vectors_1"


def _unit(rng: np.random.Generator, dim: int = 512) -> np.ndarray[Any, np.dtype[np.float32]]:
    v = rng.standard_normal((1, dim)).astype(np.float32)
    return v / np.linalg.norm(v)


def _interleaved(store: PostgresMemoryStore, clock: Clock, scopes: int, each: int) -> list[str]:
    """``scopes`` scopes of ``each`` memories, written one scope after the other in turn (as households
    write), so that each page of the vector table holds rows of different scopes; the ids."""
    ids = [f"m{i:05d}" for i in range(scopes * each)]
    MemoryEngine(store, HashEmbedder(), clock=clock).add_many(
        [NewMemory(content=f"note {mid}", scope=f"s{i % scopes}", id=mid) for i, mid in enumerate(ids)]
    )
    rng = np.random.default_rng(26)
    store.put_vectors(_MODEL, [(mid, _unit(rng)) for mid in ids])
    return ids


def _pages(conn: Any) -> dict[str, tuple[int, int]]:
    """(rows, heap pages they span) of each scope of the vector table."""
    rows = conn.execute(
        f"SELECT scope, count(*), count(DISTINCT (ctid::text::point)[0]) FROM {_TABLE} GROUP BY scope"
    ).fetchall()
    return {r[0]: (int(r[1]), int(r[2])) for r in rows}


def _stored(conn: Any) -> dict[tuple[int, int], tuple[str, bool, bytes]]:
    rows = conn.execute(
        f"SELECT memory_rowid, chunk, scope, graph, vector_send(embedding) FROM {_TABLE}"
    ).fetchall()
    return {(int(r[0]), int(r[1])): (r[2], bool(r[3]), bytes(r[4])) for r in rows}


def test_the_upkeep_gathers_scattered_scopes_onto_adjacent_pages(pg_url: str, clock: Clock) -> None:
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    try:
        _interleaved(store, clock, 12, 100)  # 1,200 memories: past ``DUE_NEW``
        with psycopg.connect(pg_url, autocommit=True) as conn:
            before = _stored(conn)
            assert all(pages >= rows - 1 for rows, pages in _pages(conn).values())  # one row a page
        store.close()
        store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))  # the next process: upkeep due
        store.build_graphs()  # the upkeep a writer's first write or ``serve`` starts
        assert store.wait_for_graphs(600)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            spans = _pages(conn)
            assert len(spans) == 12
            for rows, pages in spans.values():  # on 6e9f104: 100 pages a scope
                assert rows == 100 and pages <= math.ceil(rows / 3) + 1
            assert _stored(conn) == before  # every row, key, scope and vector as it was
            assert conn.execute("SELECT tbl, seen_rowid FROM memory_vector_gather").fetchall() == [
                (_TABLE, 1200)
            ]
            assert leftover_settings(conn) == []  # autovacuum on again
            assert conn.execute(
                "SELECT reloptions FROM pg_class WHERE relname = %s", (_TABLE,)
            ).fetchone() == (["toast_tuple_target=8160"],)
        assert DUE_NEW <= 1200
    finally:
        store.close()
        close_pools()


def _four_scopes(pg_url: str, clock: Clock) -> None:
    """Four scopes of 60 memories written interleaved, the store closed again."""
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    try:
        _interleaved(store, clock, 4, 60)
    finally:
        store.close()
        close_pools()


def test_a_gathered_scope_is_not_moved_again(pg_url: str, clock: Clock) -> None:
    _four_scopes(pg_url, clock)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert gather_table(conn, _TABLE, 0, 240, lambda: False) == 240
        assert gather_table(conn, _TABLE, 0, 240, lambda: False) == 0  # three a page: not scattered


def test_the_move_skips_a_row_a_writer_holds_and_never_waits(pg_url: str, clock: Clock) -> None:
    _four_scopes(pg_url, clock)
    with psycopg.connect(pg_url) as writer, psycopg.connect(pg_url, autocommit=True) as conn:
        writer.execute(f"SELECT 1 FROM {_TABLE} WHERE memory_rowid = 5 FOR UPDATE")  # held, not committed
        writer.execute(f"SELECT 1 FROM {_TABLE} WHERE memory_rowid = 9 FOR UPDATE")
        held = conn.execute(
            f"SELECT memory_rowid, ctid::text FROM {_TABLE} WHERE memory_rowid IN (5, 9) ORDER BY 1"
        ).fetchall()
        conn.execute("SET lock_timeout = '5s'")  # a move that waited would fail here
        assert gather_table(conn, _TABLE, 0, 240, lambda: False) == 238
        writer.rollback()
        assert (
            conn.execute(
                f"SELECT memory_rowid, ctid::text FROM {_TABLE} WHERE memory_rowid IN (5, 9) ORDER BY 1"
            ).fetchall()
            == held
        )  # left where they were
        assert conn.execute(f"SELECT count(*) FROM {_TABLE}").fetchone() == (240,)


def test_no_row_is_lost_beside_a_writer_of_the_same_scopes(pg_url: str, clock: Clock) -> None:
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA))
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    try:
        ids = _interleaved(store, clock, 6, 80)
        stop = threading.Event()
        errors: list[BaseException] = []

        def write() -> None:  # remembers and forgets in the scopes being moved, until the moves end
            rng = np.random.default_rng(5)
            n = 0
            try:
                while not stop.is_set() or n < 40:
                    mid = f"w{n:04d}"
                    engine.add_many([NewMemory(content=f"new {mid}", scope=f"s{n % 6}", id=mid)])
                    store.put_vectors(_MODEL, [(mid, _unit(rng))])
                    engine.forget(ids[n * 7 % len(ids)])
                    n += 1
            except BaseException as exc:  # reported by the test
                errors.append(exc)

        thread = threading.Thread(target=write)
        thread.start()
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '5s'")
                moved = sum(gather_table(conn, _TABLE, 0, 10_000, lambda: False) for _ in range(3))
        finally:
            stop.set()
            thread.join(120)
        assert not errors and not thread.is_alive()
        assert moved > 0
        with psycopg.connect(pg_url, autocommit=True) as conn:
            live = conn.execute("SELECT rowid, scope FROM memories WHERE deleted_at IS NULL").fetchall()
            rows = conn.execute(f"SELECT memory_rowid, scope FROM {_TABLE}").fetchall()
            assert sorted(rows) == sorted(live)  # one row per live memory, none of a forgotten one
            new, forgotten = conn.execute(
                "SELECT count(*) FILTER (WHERE id LIKE 'w%%'), count(*) FILTER (WHERE deleted_at IS NOT NULL) "
                "FROM memories"
            ).fetchone()
            assert new == forgotten >= 40 and len(live) == len(ids)  # a memory written per one forgotten
    finally:
        store.close()
        close_pools()
