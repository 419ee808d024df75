"""A bulk load on PostgreSQL (import, reindex) leaves large scopes' vectors outside the HNSW graph while
it runs (searched exactly, so recall stays right) and moves them in once at the end: the index built
anew when they outnumber the graph, inserted row by row otherwise."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._pg_inline import INLINE_WITH
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database, open_database

from .conftest import Clock


def _lines(start: int, n: int, scope: str) -> io.StringIO:
    rows = [
        {"content": f"note {i} about topic {i % 97} and thing {i % 13}", "scope": scope}
        for i in range(start, start + n)
    ]
    return io.StringIO("\n".join(json.dumps(r) for r in rows))


def _graph(db: Database) -> tuple[int, int, int]:
    """(rows in the graph, rows outside it, the HNSW index's oid)."""
    inside, outside = db.execute(
        "SELECT count(*) FILTER (WHERE graph), count(*) FILTER (WHERE NOT graph) FROM memory_vectors_1"
    ).fetchone()
    oid = db.execute("SELECT 'memory_vectors_1_hnsw'::regclass::oid").fetchone()[0]
    return int(inside), int(outside), int(oid)


def _nearest(engine: MemoryEngine, query: object) -> list[str]:
    found = engine.store.vector_search("hash-256", query, ["big"], 3)  # type: ignore[arg-type]
    return [engine.get(m.memory_id).content for m in found]


def test_a_bulk_import_joins_the_graph_once_and_recall_is_right_throughout(
    pg_url: str, tmp_path: Path, clock: Clock
) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db, graph_min=300, rebuild_min=500)
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    lite = MemoryEngine(open_store(tmp_path / "m.db"), HashEmbedder(), clock=clock)
    query = HashEmbedder().embed_query("note about topic 5 and thing 7")
    with store.bulk():
        report = import_file(engine, _lines(0, 1200, "big"))
        assert report.indexed == 1200
        assert _graph(db)[:2] == (0, 1200)  # nothing joined the graph yet ...
        import_file(lite, _lines(0, 1200, "big"))
        assert _nearest(engine, query) == _nearest(lite, query)  # ... and recall is exact
        before = _graph(db)[2]
    assert store.wait_for_graphs(600)  # the graph is built after the load returns, in the background
    inside, outside, built = _graph(db)
    assert (inside, outside) == (1200, 0) and built != before  # 1,200 rows into an empty graph: built anew
    # the build may use parallel workers, for its own transaction only: the table keeps no such option
    # (only its own storage setting: each vector kept in its row, ``_pg_inline``)
    assert db.execute("SELECT reloptions FROM pg_class WHERE relname = 'memory_vectors_1'").fetchone() == (
        [INLINE_WITH.replace(" ", "")],
    )
    assert db.execute("SELECT scope FROM memory_graph_scopes").fetchall() == [("big",)]
    assert _nearest(engine, query)[0] == _nearest(lite, query)[0]  # the graph finds the nearest
    # a small import into the large scope: inserted into the graph as it stands
    report = import_file(engine, _lines(5000, 100, "big"))
    assert report.added == 100 and _graph(db) == (1300, 0, built)
    # a larger import, but smaller than the graph: inserted as well, the index kept
    import_file(engine, _lines(6000, 600, "big"))
    assert _graph(db) == (1900, 0, built)
    # a scope that stays small is left outside the graph
    import_file(engine, _lines(9000, 50, "small"))
    assert _graph(db) == (1900, 50, built)
    # reindex is a bulk load too: every vector again, the graph built once
    engine.reindex()
    assert store.wait_for_graphs(600)
    assert _graph(db)[:2] == (1900, 50) and _graph(db)[2] != built
    assert engine.recall("topic 5 thing 7", "big", k=3)
    db.close()


def test_rows_written_outside_a_bulk_load_join_the_graph_as_before(pg_url: str, clock: Clock) -> None:
    db = open_database(pg_url, MEMORY_SCHEMA)
    engine = MemoryEngine(PostgresMemoryStore(db, graph_min=300), HashEmbedder(), clock=clock)
    engine.add_many([NewMemory(content=f"fact {i} of many", scope="big") for i in range(400)])
    engine.index_pending()
    assert _graph(db)[:2] == (400, 0)
    engine.remember("one more fact, said in a chat", "big")
    assert _graph(db)[:2] == (401, 0)
    db.close()


@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_bulk_load_commits_without_waiting_for_the_disk_and_is_durable_when_it_ends(
    pg_url: str, mode: str
) -> None:
    """Whatever the app's sessions do (``SHITSUJI_SYNCHRONOUS_COMMIT``: ``off`` by default), a bulk
    load's batches do not wait for the disk and the load's end does: an import that is done is on disk."""
    from shitsuji.store import SYNCHRONOUS_COMMIT, use_synchronous_commit

    use_synchronous_commit(pg_url, mode)
    try:
        db = open_database(pg_url, MEMORY_SCHEMA)
        store = PostgresMemoryStore(db)
        lsn = "SELECT (pg_current_wal_{}_lsn() - '0/0'::pg_lsn)::bigint"
        with store.bulk():
            with store.write() as tx:
                assert tx.execute("SHOW synchronous_commit").fetchone() == ("off",)
            with store.write() as tx:
                tx.execute("UPDATE memory_vector_state SET derived_seq = derived_seq WHERE rowid = 1")
            written = int(db.execute(lsn.format("insert")).fetchone()[0])
        # what the load committed is on disk once it has ended (the WAL flushed past its last commit)
        assert int(db.execute(lsn.format("flush")).fetchone()[0]) >= written
        with store.write() as tx:  # the session is back to the app's own setting
            assert tx.execute("SHOW synchronous_commit").fetchone() == (mode,)
        db.close()
    finally:
        use_synchronous_commit(pg_url, SYNCHRONOUS_COMMIT)
