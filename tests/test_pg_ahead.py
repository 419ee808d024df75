"""A read sent ahead (``Database.ahead``, issue 25): inside a worker thread's ``one_connection`` block, a read
whose rows a later layer asks for goes in the round trip of the block's next read (psycopg's pipeline mode).
A chat turn's start sends the household's counts that way with recall's candidates: one round trip fewer
a turn, the same statements, the same rows. Counted where they arrive: the wire proxy of
``shitsuji.bench._statements`` (statements are ``Execute`` messages, round trips their ``Sync``), in front of
a real PostgreSQL; the turn through the real ``Butler`` wiring and a scripted model."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from shitsuji.bench._statements import Statements, counting
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import Database, database

COUNTS = re.compile(r"SELECT e\.n, t\.n, s\.n, x\.n, x\.total, r\.n")
CANDIDATES = re.compile(r"\bmemory_recall_candidates\(")
SCHEMA_SQL = "CREATE TABLE IF NOT EXISTS noted (id INTEGER PRIMARY KEY, what TEXT NOT NULL)"


@pytest.fixture
def counted(pg_url: str) -> Iterator[tuple[Database, Statements]]:
    with counting(pg_url) as (url, statements):
        db = database(url)
        db.execute(SCHEMA_SQL)
        db.write_one("INSERT INTO noted (id, what) VALUES (1, 'milk'), (2, 'eggs')")
        statements.mark()
        yield db, statements


def _turn(butler: Butler, text: str) -> Any:
    """One LINE-or-web-style turn: claimed and started in one worker trip (``begin(start=True)``)."""
    ctx = butler.member("wife", "app", household="futari")
    turn = butler.service.begin(ctx, text, key=f"k-{text}", start=True)

    async def run() -> list[Any]:
        return [event async for event in butler.service.events(turn)]

    return asyncio.run(run())[-1]


def test_a_started_turn_sends_the_counts_in_recalls_round_trip(pg_url: str) -> None:
    with counting(pg_url) as (url, statements):
        db = database(url)
        HouseholdStore(db).create("futari", ["wife", "husband"])
        db.ensure(MEMORY_SCHEMA)
        memory = MemoryEngine(memory_store(db), HashEmbedder())
        memory.remember("牛乳は成城石井で買う", "household/futari/user/wife")  # recall has something to find
        butler = Butler(db, memory, ScriptedModel(lambda request: text_response("かしこまりました")))
        try:
            assert type(_turn(butler, "こんにちは")).__name__ == "Finished"
            statements.mark()
            last = _turn(butler, "牛乳を買ったよ")
            assert type(last).__name__ == "Finished", last
            sent, trips, report = statements.snapshot(), statements.round_trips, statements.report()
        finally:
            butler.close()
    counts = [i for i, s in enumerate(sent) if COUNTS.search(s.sql)]
    candidates = [i for i, s in enumerate(sent) if CANDIDATES.search(s.sql)]
    assert len(counts) == 1 and len(candidates) == 1, report  # each read once: the counts' rows were used
    assert counts[0] + 1 == candidates[0], report  # sent together: the counts, then recall's candidates
    assert len(sent) <= 8, report  # issue 25: a turn in at most 8 statements, unchanged
    # one round trip a statement at 9a2da6b (8 and 8); the counts and the candidates share one now
    assert trips == len(sent) - 1, (trips, report)


def test_a_read_sent_ahead_comes_in_the_next_reads_round_trip_with_the_same_rows(
    counted: tuple[Database, Statements],
) -> None:
    db, statements = counted
    direct = db.execute("SELECT id, what FROM noted WHERE id = ?", (2,)).fetchall()
    statements.mark()
    with db.one_connection():
        db.ahead("SELECT id, what FROM noted WHERE id = ?", (2,))
        first = db.execute("SELECT count(*) FROM noted").fetchall()
        later = db.execute("SELECT id, what FROM noted WHERE id = ?", (2,)).fetchall()
    assert first == [(2,)] and later == direct == [(2, "eggs")]
    assert len(statements) == 2 and statements.round_trips == 1, statements.report()


def test_a_write_does_not_carry_a_read_sent_ahead(counted: tuple[Database, Statements]) -> None:
    db, statements = counted
    with db.one_connection():
        db.ahead("SELECT what FROM noted ORDER BY id")
        db.write_one("INSERT INTO noted (id, what) VALUES (3, 'tofu')")  # alone: one transaction of its own
        later = db.execute("SELECT what FROM noted ORDER BY id").fetchall()
    assert later == [("milk",), ("eggs",), ("tofu",)]  # read after the write, as asked
    assert len(statements) == 2 and statements.round_trips == 2, statements.report()


@pytest.mark.parametrize("how", ["write_one", "write"])
def test_a_write_after_the_trip_drops_what_was_read_ahead(
    counted: tuple[Database, Statements], how: str
) -> None:
    db, _ = counted
    insert = "INSERT INTO noted (id, what) VALUES (3, 'tofu')"
    with db.one_connection():
        db.ahead("SELECT count(*) FROM noted")
        db.execute("SELECT what FROM noted WHERE id = ?", (1,))  # the counts came back with this one: 2
        if how == "write_one":
            db.write_one(insert)
        else:
            with db.write() as tx:
                tx.execute(insert)
        # asked for after the write: read again, never the rows from before it
        assert db.execute("SELECT count(*) FROM noted").fetchall() == [(3,)]


def test_a_failed_read_sent_ahead_leaves_the_next_read_working(counted: tuple[Database, Statements]) -> None:
    db, _ = counted
    with db.one_connection():
        db.ahead("SELECT 1 / ? FROM noted", (0,))  # division by zero
        assert db.execute("SELECT what FROM noted WHERE id = ?", (1,)).fetchall() == [("milk",)]
        with pytest.raises(Exception, match="division by zero"):  # asked for: run alone, its own error
            db.execute("SELECT 1 / ? FROM noted", (0,))
        assert db.execute("SELECT count(*) FROM noted").fetchall() == [(2,)]


def test_a_read_sent_ahead_and_not_asked_for_ends_with_its_block(
    counted: tuple[Database, Statements],
) -> None:
    db, _ = counted
    with db.one_connection():
        db.ahead("SELECT count(*) FROM noted")
        db.execute("SELECT what FROM noted WHERE id = ?", (1,))
    db.write_one("INSERT INTO noted (id, what) VALUES (3, 'tofu')")
    for _ in range(3):  # whichever pooled connection the next blocks take: rows as they are now
        with db.one_connection():
            assert db.execute("SELECT count(*) FROM noted").fetchall() == [(3,)]
    assert db.execute("SELECT count(*) FROM noted").fetchall() == [(3,)]


def test_outside_a_block_nothing_is_sent_ahead(counted: tuple[Database, Statements]) -> None:
    db, statements = counted
    db.ahead("SELECT count(*) FROM noted")
    db.execute("SELECT what FROM noted WHERE id = ?", (1,))
    assert len(statements) == 1 and statements.round_trips == 1, statements.report()
    with db.write() as tx:  # inside a transaction: its statements are its own
        db.ahead("SELECT count(*) FROM noted")
        tx.execute("SELECT what FROM noted WHERE id = ?", (1,))
    assert "count(*)" not in statements.report()


def test_recall_with_a_read_sent_ahead_finds_the_same(pg_url: str, clock: Any) -> None:
    db = database(pg_url)
    HouseholdStore(db).create("futari", ["wife"])
    db.ensure(MEMORY_SCHEMA)
    memory = MemoryEngine(memory_store(db), HashEmbedder(), clock=clock)  # still: recency the same each time
    scope = "household/futari/user/wife"
    for fact in (
        "牛乳は成城石井で買う",
        "卵は駅前のスーパー",
        "The Wi-Fi password is on the fridge",
        "納豆は朝に食べる",
    ):
        memory.remember(fact, scope)
    questions = ("牛乳はどこで買う？", "Wi-Fi password", "朝ごはん")
    alone = [[(h.memory.id, h.score) for h in memory.recall(q, scope, k=3)] for q in questions]
    with_counts = []
    for q in questions:
        with db.one_connection():
            db.ahead("SELECT count(*) FROM households WHERE name = ?", ("futari",))
            with_counts.append([(h.memory.id, h.score) for h in memory.recall(q, scope, k=3)])
            assert db.execute("SELECT count(*) FROM households WHERE name = ?", ("futari",)).fetchall() == [
                (1,)
            ]
    assert with_counts == alone and all(alone)
