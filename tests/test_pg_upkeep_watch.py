"""A long-running process's upkeep (``GraphBuilds.watch``, ``shitsuji serve``) on a real PostgreSQL: what becomes
due while a store stays open — scopes another process's imports left due for their term fold, scattered scopes
this process's own writes made — is done without reopening the store, and the gather ends with a vacuum.

Before, a server ran due upkeep at its start or when one of its own writes happened to find it due: both states
below waited for a restart (the store here is opened on a database with nothing due)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

import psycopg

from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._pg_term_upkeep import DUE_STATEMENTS, due_scopes
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import close_pools, open_database

from .conftest import Clock
from .test_pg_gather import _TABLE, _interleaved, _pages
from .test_pg_keywords import HOME, WIFE
from .test_pg_term_deltas import _assert_same, _rows_per_pair
from .test_pg_term_upkeep import _imports

#: Generous: the look, then the run, on a loaded machine.
_DEADLINE_S = 300.0


def _eventually(check: Callable[[], bool], every: float = 0.2) -> bool:
    deadline = time.monotonic() + _DEADLINE_S
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(every)
    return check()


def test_a_watching_store_folds_scopes_another_process_left_due(pg_url: str, clock: Clock) -> None:
    """A store that stays open and watches (a look every half second here); then another process imports into
    two scopes and exits before its fold (each pair split into 19 signed rows, the scopes noted due — what a CLI
    import's exit leaves): the watching store folds them, nothing written by it, nothing reopened."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db)
    other = open_database(pg_url, MEMORY_SCHEMA)  # another process
    try:
        assert not store.upkeep_pending()  # opening found nothing due
        store.watch_upkeep(every=0.5)
        writer = PostgresMemoryStore(other)
        _imports(MemoryEngine(writer, HashEmbedder(), clock=clock), 2, "other")
        assert writer.wait_for_graphs(600)
        with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
            conn.execute(
                "INSERT INTO memory_term_stats (scope, term, chunks) SELECT s.scope, s.term, (-1) ^ g "
                "FROM memory_term_stats s, generate_series(1, 18) g"
            )
            conn.execute(
                "INSERT INTO memory_term_fold_due (scope, statements) SELECT unnest(%s::text[]), %s "
                "ON CONFLICT (scope) DO UPDATE SET statements = excluded.statements",
                ([HOME, WIFE], DUE_STATEMENTS + 8),
            )
        assert _rows_per_pair(db) >= 19

        def folded() -> bool:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                return due_scopes(conn) == (0, 0) and _rows_per_pair(db) == 1

        assert _eventually(folded)  # on 453f1c1 (no watch): 19 rows a pair until a restart
        assert store.wait_for_graphs(600)
        _assert_same(store, db)
    finally:
        store.close()
        db.close()
        other.close()
        close_pools()


def test_a_watching_store_gathers_what_its_own_writes_scattered_then_vacuums(
    pg_url: str, clock: Clock
) -> None:
    """A store that stays open and watches with a look an hour apart: its own writes of ``NUDGE_ROWS`` memories
    or more make it look at once. 12 scopes written interleaved (one row a page) are gathered (three a page)
    without reopening, autovacuum is on again and the table has been vacuumed (its pages all visible)."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db)
    try:
        store.watch_upkeep(every=3600.0)
        _interleaved(store, clock, 12, 100)  # 1,200 memories by this process: past ``DUE_NEW``

        def looked() -> bool:  # the gather's mark, written after its moves, before its vacuum: a one-row read
            # (a long read that began before the moves' commit and ran into the vacuum would keep their old
            # versions from being removed: hence no scan of the vector table while the run is under way)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                return conn.execute("SELECT 1 FROM memory_vector_gather").fetchone() is not None

        assert _eventually(looked)  # on 453f1c1: no look until a restart
        assert store.wait_for_graphs(600)  # the run that wrote the mark: its vacuum done
        with psycopg.connect(pg_url, autocommit=True) as conn:
            spans = _pages(conn)
            assert len(spans) == 12
            assert all(pages <= math.ceil(rows / 3) + 1 for rows, pages in spans.values())  # 453f1c1: 100
            options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s", (_TABLE,)).fetchone()
            assert options == (["toast_tuple_target=8160"],)  # autovacuum on again
            pages, visible = conn.execute(
                "SELECT relpages, relallvisible FROM pg_class WHERE relname = %s", (_TABLE,)
            ).fetchone()
            assert pages > 0 and visible == pages  # vacuumed: the moved rows' first reads write no hint bits
            # a recall's read of a gathered scope after the vacuum writes no WAL (hint bits set already)
            conn.execute("CHECKPOINT")  # a page's first hint bits after a checkpoint would write its image
            at = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
            assert conn.execute(f"SELECT count(*) FROM {_TABLE} WHERE scope = 's3'").fetchone() == (100,)
            wrote = conn.execute("SELECT pg_current_wal_insert_lsn() - %s::pg_lsn", (at,)).fetchone()[0]
            assert wrote == 0, wrote
        MemoryEngine(store, HashEmbedder(), clock=clock).remember(
            f"one more {random.Random(1).random()}", "s1"
        )
    finally:
        store.close()
        db.close()
        close_pools()
