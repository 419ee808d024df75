"""The HNSW graph over half-precision vectors (``_pg_halfvec``, migration ``0019_hv25_halfvec_graph``):
recall's walk takes the index, finds the exact top-k with full-precision scores, and a database from
before the migration has its float graph dropped, searched exactly meanwhile, and built again over halfvec.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import psycopg
import pytest

from shitsuji.cli._doctor_graphs import built_line, graph_checks
from shitsuji.config import Settings
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._pg_halfvec import graph_room
from shitsuji.memory._pg_ingest import ADVISORY_BUILD
from shitsuji.memory._pg_recall import CANDIDATES_FUNCTION, CANDIDATES_SQL
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import Migration, close_pools, open_database

from .conftest import Clock

_MODEL, _DIM = "random-16", 16
_BIG, _SMALL = 2_000, 60  # rows of the graph scope and of a small scope (exact search)
# main's graph (0279fba and before): over the float vectors
_FLOAT_GRAPH = (
    "CREATE INDEX memory_vectors_1_hnsw ON memory_vectors_1 USING hnsw (embedding vector_cosine_ops) "
    "WITH (m = 16, ef_construction = 40) WHERE graph"
)


def _unit(rng: np.random.Generator, rows: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    v = rng.standard_normal((rows, _DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def chunks(pg_url: str, clock: Clock) -> Iterator[dict[str, np.ndarray[Any, np.dtype[np.float32]]]]:
    """A graph scope "big" and a small one "small", of random unit vectors (one to three chunks a memory,
    no ties); each memory's chunks by id."""
    rng = np.random.default_rng(25)
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA), graph_min=300)
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    ids = [(f"b{i:04d}", "big") for i in range(_BIG)] + [(f"s{i:03d}", "small") for i in range(_SMALL)]
    engine.add_many([NewMemory(content=f"note {mid}", scope=scope, id=mid) for mid, scope in ids])
    vectors = {mid: _unit(rng, 1 + i % 3) for i, (mid, _) in enumerate(ids)}
    for first in range(0, len(ids), 500):  # outside a bulk load: the scope joins the graph row by row
        store.put_vectors(_MODEL, [(mid, vectors[mid]) for mid, _ in ids[first : first + 500]])
    store.database.execute("ANALYZE")
    store.close()
    close_pools()
    yield vectors


def _exact(vectors: dict[str, Any], prefixes: tuple[str, ...], query: Any, k: int) -> list[tuple[str, float]]:
    """The true top-k: each memory's best chunk, by the float vectors' cosine (unit vectors)."""
    best = {
        mid: float((m.astype(np.float64) @ query).max()) for mid, m in vectors.items() if mid[0] in prefixes
    }
    return sorted(best.items(), key=lambda item: -item[1])[:k]


def _graph_scans(conn: psycopg.Connection[Any]) -> int:
    conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counts, flushed as it goes idle
    row = conn.execute(
        "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'memory_vectors_1_hnsw'"
    ).fetchone()
    return -1 if row is None else int(row[0])


def _candidates(
    conn: psycopg.Connection[Any], query: Any, scopes: list[str], k: int
) -> list[tuple[str, float]]:
    rows = conn.execute(
        CANDIDATES_SQL, (scopes, [], query, "memory_vectors_1", _MODEL, k, 1.2, 0.75)
    ).fetchall()
    return [(memory_id, float(score)) for signal, memory_id, score, _ in rows if signal == "vector"]


def _check_exact(conn: psycopg.Connection[Any], vectors: dict[str, Any], *, walks: bool) -> None:
    """Recall's vector candidates are the exact top 10 (ids and full-precision scores), for the graph
    scope, the small one and both; ``walks``: each search of the graph scope went through its index."""
    from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

    register_vector(conn)
    rng = np.random.default_rng(7)
    for scopes, prefixes in ((["big"], ("b",)), (["small"], ("s",)), (["big", "small"], ("b", "s"))):
        for query in _unit(rng, 8):
            before = _graph_scans(conn)
            got = _candidates(conn, query, scopes, 10)
            truth = _exact(vectors, prefixes, query, 10)
            assert [m for m, _ in got] == [m for m, _ in truth], scopes
            # scored from the float vectors: a half-precision score is ~1e-4 off
            assert np.allclose([s for _, s in got], [s for _, s in truth], atol=2e-6, rtol=0)
            if walks and "big" in scopes:
                assert _graph_scans(conn) > before, "the walk did not use the graph index"


def test_recall_walks_the_halfvec_graph_and_finds_the_exact_top_k(
    pg_url: str, chunks: dict[str, Any]
) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    (definition,) = db.execute(
        "SELECT pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname = 'memory_vectors_1_hnsw'"
    ).fetchone()
    assert f"USING hnsw (((embedding)::halfvec({_DIM})) halfvec_cosine_ops)" in definition
    with psycopg.connect(pg_url, autocommit=True) as conn:
        _check_exact(conn, chunks, walks=True)
    # the graph holds the big scope's chunks (1 to 3 a memory) and nothing of the small one
    assert db.execute("SELECT count(*) FROM memory_vectors_1 WHERE graph").fetchone() == (
        sum(1 + i % 3 for i in range(_BIG)),
    )


def test_a_database_from_before_0019_has_its_float_graph_rebuilt_over_halfvec(
    pg_url: str, chunks: dict[str, Any]
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the database as main left it
        conn.execute("DROP INDEX memory_vectors_1_hnsw")
        conn.execute(_FLOAT_GRAPH)
        conn.execute("DROP FUNCTION memory_recall_candidates")
        for statement in Migration("0013", "", postgres=CANDIDATES_FUNCTION).statements("postgresql"):
            conn.execute(statement)  # type: ignore[arg-type]
        conn.execute("DELETE FROM schema_migrations WHERE name = '0019_hv25_halfvec_graph'")
        conn.execute("ANALYZE")
        _check_exact(conn, chunks, walks=True)  # main's walk over its float graph
    with psycopg.connect(pg_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (ADVISORY_BUILD,))  # the build waits for it
        db = open_database(pg_url, MEMORY_SCHEMA)
        store = PostgresMemoryStore(db, graph_min=300)  # migrates: the float graph dropped, pending
        try:
            assert db.execute(
                "SELECT 1 FROM schema_migrations WHERE name = '0019_hv25_halfvec_graph'"
            ).fetchone()
            assert store.graphs_pending()
            assert db.execute("SELECT to_regclass('memory_vectors_1_hnsw')").fetchone() == (None,)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                _check_exact(conn, chunks, walks=False)  # pending: compared one by one, the exact top 10
            holder.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))
            store.build_graphs()  # an opening starts no build (kt25): a writer or serve does
            assert store.wait_for_graphs(600)
            assert not store.graphs_pending()
            (definition,) = db.execute(
                "SELECT pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname = 'memory_vectors_1_hnsw'"
            ).fetchone()
            assert "halfvec_cosine_ops" in definition
            db.execute("ANALYZE")
            with psycopg.connect(pg_url, autocommit=True) as conn:
                _check_exact(conn, chunks, walks=True)
        finally:
            store.close()


@pytest.mark.parametrize("start", ["build_graphs", "first_write"])
def test_a_float_graph_built_after_the_upgrade_counts_as_pending(
    pg_url: str, chunks: dict[str, Any], start: str
) -> None:
    """A process of the version before may build its float graph after the upgrade dropped it: the
    searches cannot use it, so it is pending, and the next build replaces it — whether ``serve`` asks
    (``build_graphs``) or the opening saw it due and a writer's first write starts it (the opening asks
    the same rule as ``graphs_pending``)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX memory_vectors_1_hnsw")
        conn.execute(_FLOAT_GRAPH)
    store = PostgresMemoryStore(open_database(pg_url, MEMORY_SCHEMA), graph_min=300)
    try:
        assert store.graphs_pending()  # the float graph cannot serve the halfvec walk
        if start == "build_graphs":
            store.build_graphs()
        else:
            with store.write():
                pass
        assert store.wait_for_graphs(600)  # built again over halfvec
        assert not store.graphs_pending()
        (definition,) = store.database.execute(
            "SELECT pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname = 'memory_vectors_1_hnsw'"
        ).fetchone()
        assert "halfvec_cosine_ops" in definition
    finally:
        store.close()


def test_doctor_gives_the_graphs_size_beside_shared_buffers(pg_url: str, chunks: dict[str, Any]) -> None:
    (line,) = graph_checks(Settings.from_env({}, database_url=pg_url))
    assert line.status == "ok" and "MB; shared_buffers " in line.detail, line
    with psycopg.connect(pg_url, autocommit=True) as conn:
        size, buffers = graph_room(conn)
        assert size == conn.execute("SELECT pg_relation_size('memory_vectors_1_hnsw')").fetchone()[0]  # type: ignore[index]
        assert (
            buffers
            == conn.execute(
                "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'"
            ).fetchone()[0]
        )  # type: ignore[index]
    assert f"({size / 2**20:,.1f} MB; shared_buffers {buffers / 2**20:,.0f} MB)" in line.detail
    # a graph larger than the buffers (main's 135 MB 50k graph on the default 128 MB) is a warning
    big = built_line(135 * 2**20, 128 * 2**20)
    assert big.status == "warn" and "larger than the server's shared_buffers" in big.detail
    assert "raise shared_buffers above 135 MB" in big.fix
