"""Memory in PostgreSQL: recall runs on its indexes, scores equal SQLite's, copied rows are searchable,
and extraction jobs are shared safely by worker processes (on both engines)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from shitsuji.llm import ScriptedModel, text_response
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._extract import Extractor, Turn
from shitsuji.memory._jobs import ExtractionQueue
from shitsuji.memory._postgres_store import PostgresMemoryStore, graph_sql
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._text import query_terms
from shitsuji.store import PostgresDatabase, database, open_database

from .conftest import Clock

WIFE = "household/futari/user/wife"
HOME = "household/futari"
FACTS = [
    ("ゴミの日は毎週月曜日と木曜日", HOME),
    ("妻は紅茶が好きで、コーヒーは苦手", WIFE),
    ("夫はコーヒーを毎朝二杯飲む", "household/futari/user/husband"),
    ("The spare key is under the blue flower pot", HOME),
    ("Aki is allergic to peanuts and tree nuts", WIFE),
    ("歯医者の予約は金曜日の午後三時", WIFE),
    ("Wife's favourite tea is Darjeeling with milk", WIFE),
    ("車の点検は来月の第二土曜日", HOME),
]
QUERIES = ["ゴミの日", "紅茶", "コーヒー", "spare key", "peanut allergy", "金曜日の予約", "favourite tea"]


def _fill(engine: MemoryEngine) -> None:
    items = [NewMemory(content=text, scope=scope, id=f"m{i:03d}") for i, (text, scope) in enumerate(FACTS)]
    items += [
        NewMemory(content=f"filler fact number {i} about nothing", scope=HOME, id=f"f{i:03d}")
        for i in range(40)
    ]
    engine.add_many(items)
    engine.index_pending()


@pytest.fixture
def pg_engine(pg_url: str, clock: Clock) -> Iterator[MemoryEngine]:
    store = PostgresMemoryStore(database(pg_url))
    yield MemoryEngine(store, HashEmbedder(), clock=clock)
    store.close()


def _explain(db: PostgresDatabase, sql: str, params: object) -> str:
    from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

    with db.connection() as conn:
        register_vector(conn)
        rows = conn.execute("EXPLAIN " + sql, params).fetchall()
    return "\n".join(r[0] for r in rows)


def test_the_gin_and_hnsw_indexes_exist_and_recall_uses_them(
    pg_url: str, tmp_path: Path, clock: Clock
) -> None:
    store = PostgresMemoryStore(
        open_database(pg_url, MEMORY_SCHEMA), graph_min=500
    )  # a scope of more than 500 vectors joins the graph
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    lite = MemoryEngine(open_store(tmp_path / "m.db"), HashEmbedder(), clock=clock)
    items = [
        NewMemory(
            content=f"note {i} about topic {i % 97}", scope="big" if i < 2000 else f"s/{i % 30}", id=f"n{i}"
        )
        for i in range(3000)
    ]
    for each in (engine, lite):
        each.add_many(items)
        each.index_pending()
    db = open_database(pg_url, MEMORY_SCHEMA)
    assert isinstance(db, PostgresDatabase)
    db.execute("ANALYZE")
    indexes = dict(
        db.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'").fetchall()
    )
    assert "memories_keywords" not in indexes  # postings replaced the GIN index (0012)
    assert "(scope, term, memory_rowid, chunk) INCLUDE (tf, len)" in indexes["memory_postings_pkey"]
    assert (
        "USING hnsw (((embedding)::halfvec(256)) halfvec_cosine_ops) WITH (m='16', ef_construction='40') WHERE graph"
        in (indexes["memory_vectors_1_hnsw"])
    )
    assert db.execute("SELECT scope FROM memory_graph_scopes").fetchall() == [("big",)]
    graph = db.execute("SELECT scope, count(*) FROM memory_vectors_1 WHERE graph GROUP BY scope").fetchall()
    assert graph == [("big", 2000)]
    query = HashEmbedder().embed_query("note about topic 5")
    plan = _explain(db, graph_sql("memory_vectors_1", 256), {"q": query, "s": ["big"], "n": 10})
    assert "memory_vectors_1_hnsw" in plan
    # the postings of a scope's terms are read through their key; no table is read whole
    plan = _explain(
        db,
        "SELECT * FROM memory_postings p WHERE p.term = ANY(%s) AND p.scope = ANY(%s)",
        (["topic", "5"], ["s/1"]),
    )
    assert "memory_postings_pkey" in plan and "Seq Scan" not in plan
    # the graph (big), the exact scan (s/1) and both at once find what SQLite's exact search finds
    for scopes in (["big"], ["s/1"], ["big", "s/1"]):
        mine = store.vector_search("hash-256", query, scopes, 5)
        theirs = lite.store.vector_search("hash-256", query, scopes, 5)
        assert mine[0].memory_id == theirs[0].memory_id  # (ties below may come in either order)
        assert [m.score for m in mine] == pytest.approx([m.score for m in theirs], abs=1e-5)
        assert {engine.get(m.memory_id).scope for m in mine} <= set(scopes)  # type: ignore[union-attr]


def test_keyword_and_vector_scores_equal_sqlites(
    pg_engine: MemoryEngine, tmp_path: Path, clock: Clock
) -> None:
    lite = MemoryEngine(open_store(tmp_path / "m.db"), HashEmbedder(), clock=clock)
    _fill(lite)
    _fill(pg_engine)
    scopes = [WIFE, HOME]
    for text in QUERIES:
        terms = query_terms(text)
        mine = pg_engine.store.keyword_search(terms, scopes, 20)
        theirs = lite.store.keyword_search(terms, scopes, 20)
        assert mine, text
        assert {m.memory_id: (round(m.score, 9), m.chunk) for m in mine} == {
            m.memory_id: (round(m.score, 9), m.chunk) for m in theirs
        }
        vector = HashEmbedder().embed_query(text)
        mine = pg_engine.store.vector_search("hash-256", vector, scopes, 10)
        theirs = lite.store.vector_search("hash-256", vector, scopes, 10)
        assert [m.memory_id for m in mine][:3] == [m.memory_id for m in theirs][:3]
        assert [m.score for m in mine] == pytest.approx([m.score for m in theirs], abs=1e-5)
        assert contents(pg_engine, text) == contents(lite, text)


def contents(engine: MemoryEngine, text: str) -> list[str]:
    return [h.memory.content for h in engine.recall(text, WIFE, k=5)]


def test_japanese_and_odd_keywords_are_found_with_only_pgvector(pg_engine: MemoryEngine) -> None:
    _fill(pg_engine)
    assert pg_engine.recall("ゴミの日はいつ", WIFE, k=1, semantic=False)[0].memory.content == FACTS[0][0]
    assert pg_engine.recall("歯医者", WIFE, k=1, semantic=False)[0].memory.content == FACTS[5][0]
    pg_engine.remember("the file is C:\\temp\\o'brien's notes | & ! :*", WIFE)
    hits = pg_engine.recall("c:\\temp o'brien's | & ! :*", WIFE, k=1, semantic=False)
    assert hits and "o'brien" in hits[0].memory.content
    extensions = {r[0] for r in pg_engine.store._db.execute("SELECT extname FROM pg_extension").fetchall()}  # type: ignore[attr-defined]
    assert extensions == {"plpgsql", "vector"}


def _copy(source: Path, url: str) -> None:
    """Copy ``memories`` and ``embeddings`` by column name, as `shitsuji migrate` does."""
    import sqlite3

    target = open_database(url, MEMORY_SCHEMA)
    lite = sqlite3.connect(source)
    with target.write() as tx:
        for table in ("memories", "embeddings"):
            columns = [r[1] for r in lite.execute(f"PRAGMA table_info({table})")]
            rows = lite.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            marks = ", ".join("?" * len(columns))
            tx.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
    lite.close()


def test_copied_rows_are_searchable_once_a_store_opens_the_database(
    pg_url: str, tmp_path: Path, clock: Clock
) -> None:
    lite = MemoryEngine(open_store(tmp_path / "m.db"), HashEmbedder(), clock=clock)
    _fill(lite)
    gone = lite.remember("the old bicycle lock code is 4321", WIFE).memory
    lite.forget(gone.id)
    expected = {text: contents(lite, text) for text in QUERIES}
    _copy(tmp_path / "m.db", url=pg_url)
    engine = MemoryEngine(open_store(pg_url), HashEmbedder(), clock=clock)
    assert {text: contents(engine, text) for text in QUERIES} == expected
    vector = HashEmbedder().embed_query("bicycle lock code")
    assert all(m.memory_id != gone.id for m in engine.store.vector_search("hash-256", vector, [WIFE], 5))
    engine.restore(gone.id)
    assert engine.store.vector_search("hash-256", vector, [WIFE], 1)[0].memory_id == gone.id
    engine.remember("a fact written after the copy", WIFE)
    db = open_database(pg_url, MEMORY_SCHEMA)
    assert db.execute("SELECT count(*) = count(DISTINCT seq) FROM embeddings").fetchone()[0] is True
    assert contents(engine, "written after the copy")[0] == "a fact written after the copy"


# -- extraction jobs shared by worker processes, on both engines ---------------------------------

CLAIMER = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from pathlib import Path
    from shitsuji.memory._jobs import ExtractionQueue
    from shitsuji.store import database
    queue = ExtractionQueue(database(sys.argv[1]), None)
    go = Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.005)
    claimed = []
    while (job := queue._claim()) is not None:
        claimed.append(job[0])
        if sys.argv[3] == "die":
            os.kill(os.getpid(), signal.SIGKILL)
    print(json.dumps(claimed))
    """
)


@pytest.fixture
def memory_target(target: str) -> str:
    """The engine keeps its memories where the jobs are."""
    return target


def _queue(target: str, engine: MemoryEngine, clock: Clock, model: ScriptedModel) -> ExtractionQueue:
    return ExtractionQueue(database(target), Extractor(model, engine), clock=clock)


def test_two_worker_processes_never_claim_the_same_job(
    target: str, engine: MemoryEngine, tmp_path: Path
) -> None:
    queue = _queue(target, engine, Clock(), ScriptedModel([]))
    jobs = {queue.enqueue([Turn("user", f"fact {i}", f"m{i}")], WIFE, conversation="c") for i in range(60)}
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIMER, target, str(go), "live"], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    go.touch()
    claimed = [json.loads(w.communicate(timeout=60)[0]) for w in workers]
    assert all(w.returncode == 0 for w in workers)
    assert not set(claimed[0]) & set(claimed[1])
    assert sorted(claimed[0] + claimed[1]) == sorted(j for j in jobs if j)
    queue.close()


def test_a_killed_workers_job_is_run_again_after_its_lease(
    target: str, engine: MemoryEngine, tmp_path: Path, clock: Clock
) -> None:
    clock.now = datetime.now(UTC)
    fact = text_response(json.dumps([{"fact": "Aki is allergic to peanuts.", "importance": 0.9}]))
    queue = _queue(target, engine, clock, ScriptedModel([fact]))
    job = queue.enqueue([Turn("user", "I'm allergic to peanuts", "m1")], WIFE, conversation="c")
    go = tmp_path / "go"
    go.touch()
    worker = subprocess.run([sys.executable, "-c", CLAIMER, target, str(go), "die"], timeout=60)
    assert worker.returncode == -9
    assert queue.status(job or "") == ("running", 1, None)
    clock.advance(minutes=5)
    assert asyncio.run(queue.run_due()) == []  # still leased to the dead worker
    clock.advance(minutes=6)
    [outcome] = asyncio.run(queue.run_due())
    assert (outcome.job_id, outcome.status, outcome.attempts) == (job, "done", 2)
    assert [m.content for m in engine.list_memories(WIFE)] == ["Aki is allergic to peanuts."]
    queue.close()


def test_the_scale_bench_fills_and_times_either_engine(target: str) -> None:
    from shitsuji.bench.scale_memory import ONLINE, run_memory_scale

    result = run_memory_scale(target, 1200, 4, queries=5)
    assert result["engine"] == ("postgresql" if target.startswith("postgresql://") else "sqlite")
    assert (result["memories"], result["scopes"], result["per_scope"]) == (1200, 4, 300)
    assert result["ingest_rows_per_s"] > 0 and result["recall_p95_ms"] >= result["recall_p50_ms"] > 0
    assert result["recall_unread_p95_ms"] >= result["recall_unread_p50_ms"] > 0  # 3 scopes no query had read
    assert result["online_rows_per_s"] > 0  # and then ONLINE more rows, outside the bulk load
    store = open_store(target)
    assert store.stats().memories == 1200 + ONLINE and store.stats().indexed == 1200 + ONLINE
    store.close()
