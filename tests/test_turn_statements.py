"""What a plain chat turn costs the database, counted where the statements arrive (issue 25).

A turn through the one conversation service (the real ``Butler`` wiring, the scripted model) on a
real SQLite file and a real PostgreSQL: the statements are counted by SQLite's own trace callback
and, on PostgreSQL, by a proxy that reads the wire protocol between the pool and the server
(``shitsuji.bench._statements``). On PostgreSQL each statement is a round trip.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from shitsuji.bench._statements import Sent, Statements, counting, watch
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ModelRequest, ModelResponse, ScriptedModel, text_response, tool_use_response
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import Database, database

# what PostgreSQL received for one plain turn on main at 2dbb649, outside the memory store's recall:
# 21 statements besides BEGIN/COMMIT — the household and members read three times,
# the conversation found and read in three, the cards twice, a message written twice, its key read
# besides transaction control: 8 at 71d9884 (the anniversaries apart from the counts), 7 at 0279fba (the
# conversation's cards read after its claim); 6 since they come with the claim, in its statement
MAX_STATEMENTS = 6
MAX_SENT = 6  # everything the server received for them: the three writes are one statement each, sent
# alone (`Database.write_one`; 14 with BEGIN/COMMIT around each at 6a248c0)
MAX_TURN = 8  # issue 25: a turn in at most 8 statements, recall's included (9 at 0279fba)
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
MEMORY_TABLES = re.compile(r"\b(memories|embeddings|memory_\w+)\b")  # recall: the memory store's own count
# recall on PostgreSQL sent 6 at ab1d8cc: the keyword search, the vector search (3: exact, which scopes
# use the graph, the hits' ids), then the candidates' rows and their vectors apart (now one statement)
MAX_RECALL = 5


@dataclass
class Counted:
    butler: Butler
    db: Database
    statements: Statements
    open_during_model: list[str]


def _open_transactions(db: Database, direct: str) -> list[str]:
    """Transactions open on the database right now (what a model call must never wait inside)."""
    if db.dialect == "sqlite":
        return ["sqlite"] if db.conn.in_transaction else []
    import psycopg

    with psycopg.connect(direct, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT query FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%'"
        ).fetchall()
    return [str(r[0]) for r in rows]


@pytest.fixture
def counted(target: str) -> Iterator[Counted]:
    with counting(target) as (url, statements):
        db = database(url)
        store = HouseholdStore(db)
        store.create("futari", ["wife", "husband"])
        db.ensure(MEMORY_SCHEMA)
        memory = MemoryEngine(memory_store(db), HashEmbedder())
        memory.remember("牛乳は成城石井で買う", "household/futari/user/wife")  # recall has something to find
        if db.dialect == "sqlite":
            watch(db, statements)
        seen: list[str] = []

        def answer(request: ModelRequest) -> ModelResponse:
            seen.extend(_open_transactions(db, target))
            return text_response("かしこまりました")

        butler = Butler(db, memory, ScriptedModel(answer))
        yield Counted(butler, db, statements, seen)
        butler.close()


def _turn(butler: Butler, text: str) -> Any:
    ctx = butler.member("wife", "app", household="futari")
    turn = butler.service.begin(ctx, text, key=f"k-{text}")

    async def run() -> list[Any]:
        return [event async for event in butler.service.events(turn, mode="task")]

    return asyncio.run(run())[-1]


def _statements(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if not s.sql.strip().upper().startswith(CONTROL)]


def test_a_plain_turn_reads_nothing_twice_and_writes_only_its_conversation(counted: Counted) -> None:
    _turn(counted.butler, "こんにちは")  # the conversation exists from here on, as on every later turn
    counted.statements.mark()
    last = _turn(counted.butler, "牛乳を買ったよ")
    assert type(last).__name__ == "Finished", last
    sent = counted.statements.snapshot()
    report = counted.statements.report()
    again = counted.statements.repeated_reads()
    # on SQLite the in-process memory index asks once whether it is fresh, for both of its searches (it
    # asked before each until issue 23 fl27: the generation read twice)
    assert again == [], report
    conversation = last.conversation
    writes = [s for s in _statements(sent) if not s.reads]
    assert writes, report
    for write in writes:  # no row that every turn of every member updates (a counter, a global state)
        # the claim, taken before the conversation is read, picks it by the member's pair (their latest)
        picks = "FROM conversations WHERE owner" in write.sql
        for name in ("wife", "futari") if picks else (conversation,):
            if write.params is not None:  # PostgreSQL: the parameters as sent
                assert name.encode() in write.params, f"{write.sql} touches more than its conversation"
            else:
                assert f"'{name}'" in write.sql, f"{write.sql} touches more than its conversation"
    assert counted.open_during_model == [], "a transaction was open while the model answered"


def test_a_plain_turn_on_postgresql_is_a_handful_of_statements(counted: Counted) -> None:
    if counted.db.dialect != "postgresql":
        pytest.skip("counted in round trips: PostgreSQL")
    _turn(counted.butler, "こんにちは")
    counted.statements.mark()
    _turn(counted.butler, "牛乳を買ったよ")
    sent = counted.statements.snapshot()
    report = counted.statements.report()
    recall = [s for s in sent if MEMORY_TABLES.search(s.sql)]
    assert recall, report  # the memory was recalled (the memory store's statements, counted apart)
    turn = [s for s in sent if s not in recall]
    assert len(_statements(turn)) <= MAX_STATEMENTS, report
    assert len(turn) <= MAX_SENT, report
    assert len(recall) <= MAX_RECALL, report
    assert len(_statements(sent)) <= MAX_TURN, report
    # the candidates' rows and their vectors come in one round trip: nothing else reads embeddings
    vectors = [s for s in recall if re.search(r"\bembeddings\b", s.sql)]
    assert len(vectors) == 1 and re.search(r"\bm\.content\b", vectors[0].sql), report


def test_the_scale_bench_reports_a_turns_statements_and_cpu(target: str) -> None:
    from shitsuji.bench.scale_turn import count_turn, time_turn

    counted = count_turn(target, turns=2)
    timed = time_turn(target, turns=3)
    assert counted["statements"] >= counted["statements_outside_recall_without_begin_commit"] > 0
    assert counted["recall_statements"] > 0
    assert timed["turn_p50_ms"] > 0 and timed["app_cpu_ms_per_turn"] > 0
    if target.startswith("postgresql"):  # the server is found from a backend's parent, and it worked
        assert counted["statements_outside_recall_without_begin_commit"] <= MAX_STATEMENTS
        assert timed["db_cpu_ms_per_turn"] is not None and timed["db_cpu_ms_per_turn"] >= 0
    else:
        assert timed["db_cpu_ms_per_turn"] is None  # in the process: its CPU is the app's


def test_a_turn_whose_tools_need_the_zone_reads_it_with_the_member_only(counted: Counted) -> None:
    # the member's household, its time zone with it, is read when the turn's context is made; the
    # ``remember`` and ``search_memory`` tools take the zone from there (``ToolContext.zone``) — each read
    # it again before (``HouseholdStore.zone``: a round trip per tool call on PostgreSQL)
    HouseholdStore(counted.db).set_time_zone("futari", "Asia/Tokyo")
    calls = [
        tool_use_response(("t1", "remember", {"content": "夫は甘酒が好き", "category": "preference"})),
        tool_use_response(("t2", "search_memory", {"query": "先月買ったもの"})),
        text_response("覚えました"),
    ]
    butler = Butler(counted.db, counted.butler.memory, ScriptedModel(calls))
    try:
        counted.statements.mark()
        last = _turn(butler, "夫は甘酒が好きなの、覚えておいて")
        assert type(last).__name__ == "Finished", last
        sent = counted.statements.snapshot()
    finally:
        butler.close()
    zones = [s for s in sent if re.search(r"\btime_zone\s+FROM\s+households\b", s.sql)]
    assert zones == [], counted.statements.report()
    wife = counted.butler.memory.list_memories("household/futari/user/wife")
    (stored,) = [m for m in wife if m.content == "夫は甘酒が好き"]
    assert stored.provenance["zone"] == "Asia/Tokyo"  # the household's zone, from the context
