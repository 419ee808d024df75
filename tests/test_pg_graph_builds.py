"""A bulk load on PostgreSQL returns before its HNSW graph is built (in the background, ``_pg_graph_builds``):
while the graph is pending its scope is searched exactly — the true top-k — and no search waits for the
build; once built the graph finds what exact search finds (within its recall); a build cut short is built
again by the next process that writes (opening alone builds nothing)."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg

from shitsuji.memory import HashEmbedder, ImportReport, MemoryEngine
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database, open_database

from .conftest import Clock

_WORDS = ["tea", "coffee", "dentist", "train", "school", "紅茶", "歯医者", "電車", "garden", "rent"]
_QUERIES = ["tea thing 3", "歯医者 予定5", "garden rent", "電車 school thing 11", "coffee 予定2"]


def _lines(n: int) -> io.StringIO:
    rows = [
        {
            "content": f"note {i} about {_WORDS[i % 10]} and {_WORDS[(i * 7) % 10]} thing {i % 13} 予定{i % 17}",
            "scope": "big",
        }
        for i in range(n)
    ]
    return io.StringIO("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))


def _index(db: Database) -> Any:
    """The graph index's (valid, ready), None when there is none."""
    return db.execute(
        "SELECT i.indisvalid, i.indisready FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE c.relname = 'memory_vectors_1_hnsw'"
    ).fetchone()


def _building(db: Database) -> int | None:
    """The pid of a CREATE INDEX CONCURRENTLY under way in this database (not another test's), if one is."""
    row = db.execute(
        "SELECT pid FROM pg_stat_progress_create_index WHERE datname = current_database()"
    ).fetchone()
    return None if row is None else int(row[0])


def _until(check: Any, what: str, deadline_s: float = 600) -> Any:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"not seen within {deadline_s} s: {what}")


def _exact_top(store: PostgresMemoryStore, query: Any, k: int) -> list[float]:
    """The true top-k cosines in the scope, computed here from every stored vector."""
    ids = [m.id for m in store.list_memories("big", include_deleted=False)]
    vectors = store.vectors_of(HashEmbedder().model_id, ids)
    scores = np.array([float(vectors[i] @ query) for i in ids])
    return sorted(scores.tolist(), reverse=True)[:k]


def _check_searches(store: PostgresMemoryStore, *, exact: bool) -> None:
    embedder = HashEmbedder()
    for text in _QUERIES:
        query = embedder.embed_query(text)
        found = store.vector_search(embedder.model_id, query, ["big"], 10)
        truth = _exact_top(store, query, 10)
        got = [m.score for m in found]
        if exact:  # pending: the scope's rows compared one by one — the true top 10
            assert np.allclose(got, truth, atol=1e-5), (text, got, truth)
        else:  # the graph: the nearest the same, nine of ten the same
            assert abs(got[0] - truth[0]) < 1e-5
            assert sum(1 for s in got if s >= truth[-1] - 1e-5) >= 9


def _store(pg_url: str, clock: Clock) -> tuple[Database, PostgresMemoryStore, MemoryEngine]:
    """A store whose scope joins the graph from 300 vectors, the index built anew from 100 moved."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db, graph_min=300, rebuild_min=100)
    return db, store, MemoryEngine(store, HashEmbedder(), clock=clock)


@contextmanager
def _old_snapshot(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    """A transaction holding a snapshot: a concurrent index build waits for it before the index is valid."""
    with psycopg.connect(pg_url) as old:
        old.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        old.execute("SELECT 1")
        yield old


def test_a_bulk_import_returns_before_the_graph_is_built_and_searches_are_exact_meanwhile(
    pg_url: str, clock: Clock
) -> None:
    db, store, engine = _store(pg_url, clock)
    with _old_snapshot(pg_url) as old:
        reports: list[ImportReport] = []
        importer = threading.Thread(target=lambda: reports.append(import_file(engine, _lines(420))))
        importer.start()
        importer.join(600)  # the import does not wait for the build (before in25c it waited with it)
        returned = not importer.is_alive()
        try:
            assert returned, "the import waited for the graph's build"
            assert reports[0].indexed == 420 and reports[0].graph_pending
            pid = _until(lambda: _building(db), "the background build under way")
            assert store.graphs_pending() and _index(db) in (None, (False, True), (False, False))
            t0 = time.monotonic()
            _check_searches(store, exact=True)  # while the build waits: exact, and not waiting for it
            assert _building(db) == pid and time.monotonic() - t0 < 300
            assert engine.recall("tea thing 3", "big", k=3)
        finally:
            old.rollback()
            importer.join(600)
    assert store.wait_for_graphs(600)
    assert _index(db) == (True, True) and not store.graphs_pending()
    _check_searches(store, exact=False)
    db.close()


def test_a_background_build_cut_short_is_pending_until_a_writer_opens_and_builds_it(
    pg_url: str, clock: Clock
) -> None:
    db, store, engine = _store(pg_url, clock)
    with _old_snapshot(pg_url) as old, psycopg.connect(pg_url, autocommit=True) as admin:
        import_file(engine, _lines(400))
        pid = _until(lambda: _building(db), "the background build under way")
        admin.execute("SELECT pg_cancel_backend(%s)", (pid,))  # as a process that stops mid-build
        assert store.wait_for_graphs(600)
        old.rollback()
    assert store.graphs_pending() and _index(db) is not None and _index(db)[0] is False
    _check_searches(store, exact=True)  # an invalid index is never walked: still exact
    reopened = PostgresMemoryStore(db)  # opening alone starts no build (a read-only command's opening)
    assert reopened.wait_for_graphs(0) and _building(db) is None
    MemoryEngine(reopened, HashEmbedder(), clock=clock).remember("a new note", scope="small")
    assert reopened.wait_for_graphs(600)  # its first write started the build, in the background
    assert _index(db) == (True, True) and not store.graphs_pending()
    _check_searches(store, exact=False)
    db.close()


def test_a_bulk_load_of_small_scopes_leaves_a_build_under_way_alone(pg_url: str, clock: Clock) -> None:
    db, store, engine = _store(pg_url, clock)
    with _old_snapshot(pg_url) as old:
        import_file(engine, _lines(400))
        pid = _until(lambda: _building(db), "the background build under way")
        small = [json.dumps({"content": f"a small scope's note {i}", "scope": "small"}) for i in range(20)]
        assert import_file(engine, io.StringIO("\n".join(small))).added == 20  # nothing joins the graph
        assert _building(db) == pid  # the same build goes on: not cancelled and begun again
        old.rollback()
    assert store.wait_for_graphs(600)
    assert _index(db) == (True, True)
    db.close()
