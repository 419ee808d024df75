"""A bulk load ends as one-by-one adds do: the same keyword postings and statistics, the same recall — the
graph built concurrently after the load on PostgreSQL; a batch's embeddings replace what was there, by
either way of writing them; a graph build that died is built again when a store opens."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._pg_ingest import COPY_MIN
from shitsuji.memory._postgres_store import PostgresMemoryStore, hnsw_sql
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database, open_database

from .conftest import Clock, PostgresServer

_WORDS = ["tea", "coffee", "dentist", "train", "school", "紅茶", "歯医者", "電車", "garden", "rent"]


def _text(i: int) -> str:
    return f"note {i} about {_WORDS[i % 10]} and {_WORDS[(i * 7) % 10]} thing {i % 13} 予定{i % 17}"


def _items() -> list[tuple[str, str]]:
    return [(_text(i), "big" if i % 9 else "small") for i in range(420)]


@contextmanager
def _engine(target: str, clock: Clock) -> Iterator[MemoryEngine]:
    """An engine on ``target``; on PostgreSQL a graph from 300 vectors, built anew from 100 moved."""
    if target.startswith("postgresql://"):
        db = open_database(target, MEMORY_SCHEMA)
        engine = MemoryEngine(
            PostgresMemoryStore(db, graph_min=300, rebuild_min=100), HashEmbedder(), clock=clock
        )
        yield engine
        db.close()
        return
    store = open_store(target)
    yield MemoryEngine(store, HashEmbedder(), clock=clock)
    store.close()


def _keyword_tables(db: Any) -> list[list[tuple[Any, ...]]]:
    return [
        db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
        for table in (
            "memory_postings",
            # a pair's count is the sum of its rows: one a bulk batch, folded by small writes (_pg_term_deltas)
            "(SELECT scope, term, sum(chunks) FROM memory_term_stats GROUP BY scope, term "
            "HAVING sum(chunks) <> 0) counts",
            "memory_scope_stats",
        )
    ]


def _recalled(engine: MemoryEngine) -> tuple[list[list[str]], list[list[str]]]:
    """Contents found for a set of queries: (whole recalls and vector searches outside the graph, vector
    searches of the graph's scope)."""
    embedder = HashEmbedder()
    exact: list[list[str]] = []
    graph: list[list[str]] = []
    for i in range(0, 60, 7):
        query = f"{_WORDS[i % 10]} thing {i % 13}"
        for scope in ("big", "small"):
            exact.append([r.memory.content for r in engine.recall(query, scope, k=5)])
        for scopes in (["small"], ["big"], ["big", "small"]):
            matches = engine.store.vector_search(embedder.model_id, embedder.embed_query(query), scopes, 10)
            (exact if scopes == ["small"] else graph).append(
                [engine.get(m.memory_id).content for m in matches]
            )
    return exact, graph


def test_recall_after_a_bulk_load_is_recall_after_one_by_one_adds(
    target: str, pg_server: PostgresServer, clock: Clock
) -> None:
    lines = io.StringIO("\n".join(json.dumps({"content": c, "scope": s}) for c, s in _items()))
    with _engine(target, clock) as bulk:
        import_file(bulk, lines)  # rows, then vectors in one bulk load: on PostgreSQL the graph at its end
        by_bulk = _recalled(bulk)
        tables = _keyword_tables(bulk.store._db) if target.startswith("postgresql://") else []
    other = pg_server.database() if target.startswith("postgresql://") else None
    second = other.__enter__() if other is not None else target + "-2"
    try:
        with _engine(second, clock) as one:
            for content, scope in _items():  # one row, then its vector, each in its own transactions
                one.add_many([NewMemory(content=content, scope=scope)])
                one.index_pending()
            exact, graph = _recalled(one)
            assert exact == by_bulk[0]
            # the graph is approximate, and one built at once links otherwise than one grown row by row:
            # the nearest the same, the rest nine in ten the same
            for got, want in zip(graph, by_bulk[1], strict=True):
                assert got[0] == want[0] and len(set(got) & set(want)) >= 9
            if other is not None:
                assert _keyword_tables(one.store._db) == tables  # postings, term and scope statistics
                graph = one.store._db.execute("SELECT count(*) FROM memory_vectors_1 WHERE graph").fetchone()
                assert graph == (sum(1 for _, s in _items() if s == "big"),)
    finally:
        if other is not None:
            other.__exit__(None, None, None)


@pytest.mark.parametrize("rows", [1, COPY_MIN - 1, COPY_MIN, 100])
def test_a_batch_of_vectors_replaces_the_vectors_there_by_either_way(pg_url: str, rows: int) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db)
    engine = MemoryEngine(store, HashEmbedder())
    engine.add_many([NewMemory(content=f"fact {i}", scope="s") for i in range(rows)])
    ids = [m.id for m in store.list_memories("s", include_deleted=False)]
    embedder = HashEmbedder()
    for text in ("first", "second"):
        store.put_vectors(embedder.model_id, [(i, embedder.embed_query(f"{text} {i}")) for i in ids])
    assert db.execute("SELECT count(*), count(DISTINCT seq) FROM embeddings").fetchone() == (rows, rows)
    stored = store.vectors_of(embedder.model_id, ids)
    assert all((stored[i] == embedder.embed_query(f"second {i}")).all() for i in ids)
    assert db.execute("SELECT count(*) FROM memory_vectors_1").fetchone() == (rows,)
    db.close()


def _valid(db: Database) -> Any:
    return db.execute(
        "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE c.relname = 'memory_vectors_1_hnsw'"
    ).fetchone()


def test_a_graph_build_that_died_is_built_again_by_the_next_writer(pg_url: str, clock: Clock) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    engine = MemoryEngine(
        PostgresMemoryStore(db, graph_min=300, rebuild_min=100), HashEmbedder(), clock=clock
    )
    lines = [json.dumps({"content": _text(i), "scope": "big"}) for i in range(400)]
    import_file(engine, io.StringIO("\n".join(lines)))
    assert engine.store.wait_for_graphs(600)  # type: ignore[attr-defined]
    assert _valid(db) == (True,)
    # a concurrent build cancelled while it waits for a writer: its index stays, invalid
    db.execute("DROP INDEX memory_vectors_1_hnsw")
    with psycopg.connect(pg_url) as writer, psycopg.connect(pg_url, autocommit=True) as builder:
        writer.execute("LOCK TABLE memory_vectors_1 IN ROW EXCLUSIVE MODE")
        builder.execute("SET statement_timeout = '1s'")
        with pytest.raises(psycopg.errors.QueryCanceled):
            builder.execute(
                hnsw_sql("memory_vectors_1", 256).replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY")
            )
        writer.rollback()
    assert _valid(db) == (False,)
    reopened = PostgresMemoryStore(db)  # opening alone builds nothing (a read-only command's opening)
    assert reopened.wait_for_graphs(0) and _valid(db) == (False,)
    MemoryEngine(reopened, HashEmbedder(), clock=clock).remember("a note of its own", "small")
    assert reopened.wait_for_graphs(600)  # its first write builds it again
    assert _valid(db) == (True,)
    embedder = HashEmbedder()
    found = engine.store.vector_search(embedder.model_id, embedder.embed_query(_text(7)), ["big"], 1)
    assert engine.get(found[0].memory_id).content == _text(7)
    # the same when the build never started: the index dropped, the process gone
    db.execute("DROP INDEX memory_vectors_1_hnsw")
    reopened = PostgresMemoryStore(db)
    reopened.build_graphs()  # as `serve` at its start
    assert reopened.wait_for_graphs(600)
    assert _valid(db) == (True,)
    db.close()
