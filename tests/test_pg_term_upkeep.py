"""The background fold of term-count rows (``_pg_term_upkeep``, migration ``0026_sc26_term_fold_due``) on a real
PostgreSQL: scopes filled by many separate small imports keep few rows a pair once the upkeep has run, ``shitsuji
doctor`` says when scopes wait for it, a database from before is folded after its migration, and the fold beside
threads remembering and forgetting the same words loses no count."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from shitsuji.cli._doctor_graphs import graph_checks
from shitsuji.config import Settings
from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._pg_term_upkeep import DUE_STATEMENTS, UPKEEP_ROWS, due_scopes, fold_due_scopes
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database, open_database

from .conftest import Clock
from .test_pg_graph_wait import _env, _shitsuji
from .test_pg_keywords import HOME, WIFE, _text
from .test_pg_term_deltas import _assert_same, _lines, _rows_per_pair, small_writes

#: Imports of ``_LINES`` lines each: one statement each (more than ``COMPACT_MAX``, fewer than ``FOLD_ROWS``).
_IMPORTS, _LINES = 40, 100


@pytest.fixture
def pg(pg_url: str, clock: Clock) -> Iterator[tuple[MemoryEngine, Database]]:
    db = open_database(pg_url, MEMORY_SCHEMA)
    yield MemoryEngine(PostgresMemoryStore(db), HashEmbedder(), clock=clock), db
    db.close()


def _imports(engine: MemoryEngine, count: int, tag: str) -> None:
    for k in range(count):
        import_file(engine, _lines(random.Random(k), _LINES, f"{tag}{k}-", (HOME, WIFE)), index=False)


def _term_line(pg_url: str) -> list[str]:
    return [
        c.detail for c in graph_checks(Settings.from_env({}, database_url=pg_url)) if c.name == "term counts"
    ]


def test_many_small_imports_leave_few_rows_a_pair_once_the_upkeep_ran(
    pg: tuple[MemoryEngine, Database], pg_url: str
) -> None:
    """40 imports of 100 lines into two scopes (a statement each: no import folds, a row a pair a statement
    — 40 on 6e9f104): the 33rd makes the scopes due; once the upkeep it started has run, a pair holds at most
    the bound plus the statements after, no scope waits and the sums equal a recount."""
    engine, db = pg
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    _imports(engine, _IMPORTS, "a")
    assert store.wait_for_graphs(600)
    assert _rows_per_pair(db) <= UPKEEP_ROWS + _IMPORTS - DUE_STATEMENTS - 1  # 15; 6e9f104: 40
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert due_scopes(conn) == (0, 0)
    assert _term_line(pg_url) == []  # shitsuji doctor: nothing behind
    _assert_same(store, db)


def _from_before(pg_url: str, clock: Clock) -> None:
    """A database whose pairs many writes left in 19 rows or more each before the migration (a pair's count split
    into rows of +1 and -1, as signed writes leave them), as 6e9f104 left it."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    engine = MemoryEngine(PostgresMemoryStore(db), HashEmbedder(), clock=clock)
    _imports(engine, 2, "old")
    assert engine.store.wait_for_graphs(600)
    engine.store.close()
    db.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO memory_term_stats (scope, term, chunks) SELECT s.scope, s.term, (-1) ^ g "
            "FROM memory_term_stats s, generate_series(1, 18) g"
        )
        conn.execute("DROP TABLE memory_term_fold_due")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0026_sc26_term_fold_due'")


def test_a_database_from_before_is_folded_after_its_migration(pg_url: str, clock: Clock) -> None:
    """A database from before (``_from_before``): the migration notes every scope, the doctor says they wait
    (opening starts nothing), and the first write's upkeep folds every pair."""
    _from_before(pg_url, clock)
    db = open_database(pg_url, MEMORY_SCHEMA)  # migrates
    store = PostgresMemoryStore(db)
    try:
        assert _rows_per_pair(db) >= 19
        (line,) = _term_line(pg_url)
        assert line.startswith("2 scope(s)")  # shitsuji doctor: behind
        MemoryEngine(store, HashEmbedder(), clock=clock).remember(f"{_text(random.Random(3))} new", HOME)
        assert store.wait_for_graphs(600)  # the first write started the upkeep
        assert _rows_per_pair(db) == 1
        assert _term_line(pg_url) == []
        _assert_same(store, db)
    finally:
        store.close()
        db.close()


def test_the_upkeep_beside_remember_and_forget_threads_loses_no_count(
    pg: tuple[MemoryEngine, Database], pg_url: str
) -> None:
    """Imports while two threads remember and forget facts of the same words in the same scopes and a third
    folds every pair of more than one row again and again (its scopes kept due): the small writes' folds
    and the upkeep's meet on the same rows — no deadlock, nothing waited on for good, no count lost; a last
    pass leaves one row a pair."""
    engine, db = pg
    done = threading.Event()
    errors: list[BaseException] = []
    passes = [0]

    def keep_due(conn: psycopg.Connection[tuple[object, ...]]) -> None:
        conn.execute(
            "INSERT INTO memory_term_fold_due (scope, statements) SELECT unnest(%s::text[]), 1000 "
            "ON CONFLICT (scope) DO UPDATE SET statements = 1000",
            ([HOME, WIFE],),
        )

    def upkeep() -> None:
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                while not done.is_set():
                    keep_due(conn)
                    fold_due_scopes(conn, done.is_set, rows=1)
                    passes[0] += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=upkeep),
        *(threading.Thread(target=small_writes, args=(engine, w, done, errors)) for w in (1, 2)),
    ]
    for thread in threads:
        thread.start()
    try:
        _imports(engine, 6, "b")
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=600)
    assert not errors and not any(t.is_alive() for t in threads), errors
    assert passes[0] >= 1
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    assert store.wait_for_graphs(600)
    _assert_same(store, db)  # the sums: a recount from the live rows; BM25 as the Python scorer's
    with psycopg.connect(pg_url, autocommit=True) as conn:
        keep_due(conn)
        fold_due_scopes(conn, lambda: False, rows=1)
    assert _rows_per_pair(db) == 1  # 6e9f104: a row a pair a statement
    _assert_same(store, db)


def test_reindex_graph_only_runs_the_upkeep_when_no_graph_is_pending(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    """The doctor's fix for waiting term counts, on a database only short commands open: `shitsuji reindex
    --graph-only` folds them and waits for it, though no graph is pending (before, it said "no vector search
    graph is pending" and left every scope waiting)."""
    _from_before(pg_url, clock)
    env = _env(pg_url, tmp_path)
    done = _shitsuji(env, "reindex", "--graph-only", "--json")  # migrates, then the upkeep opening found due
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["graph_built"] is False and answer["graph_pending"] is False and "upkeep_s" in answer
    db = open_database(pg_url, MEMORY_SCHEMA)
    try:
        assert _rows_per_pair(db) == 1
        assert _term_line(pg_url) == []
        # a scope folded down to no statements leaves no note behind (the pass's end deletes it)
        assert db.execute("SELECT count(*) FROM memory_term_fold_due").fetchone()[0] == 0
    finally:
        db.close()
    again = _shitsuji(env, "reindex", "--graph-only", "--json")  # nothing left to do
    assert json.loads(again.stdout) == {"graph_built": False, "graph_pending": False}
