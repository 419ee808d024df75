"""The dates rows are about, stored for rows written before they were — or by other reading rules — by
the upkeep a long-running process starts (``serve``, the hook server: ``index_in_background``), without a
``reindex``: nothing embedded again, one write a batch; ``doctor``'s ``dates`` line counts what waits
(issue 23, dt29). Both engines, English and Japanese, a fixed clock."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._about import RULES
from shitsuji.memory._open import memory_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import Database, open_database

from .conftest import Cli, Clock

TOKYO = ZoneInfo("Asia/Tokyo")
SCOPE = "household/futari"
SAID = datetime(2026, 12, 1, 8, tzinfo=TOKYO)
ASKED = datetime(2026, 12, 3, 12, tzinfo=TOKYO)  # "last month" is Tokyo's November
EMBEDDER = HashEmbedder()  # the ``cli`` fixture's
# (the fact, said on 1 December about 30 November; a newer one that wins on words alone; the question)
FACTS = [
    (
        "Yesterday we travelled to Kyoto",
        "Where should we travel? We like to travel by train",
        "Where did we travel last month?",
    ),
    ("昨日、京都に行った", "どこに行ったか忘れた", "先月どこに行った？"),
]
NOV_30 = int(datetime(2026, 11, 30, tzinfo=TOKYO).timestamp())


def _dates_line(cli: Cli, target: str) -> dict[str, Any]:
    where = ("--database-url", target) if target.startswith("postgresql") else ("--db", target)
    run = cli(*where, "doctor", "--json")
    return next(c for c in json.loads(run.out)["checks"] if c["name"] == "dates")


def _columns(db: Database) -> dict[str, tuple[Any, ...]]:
    """Each row's ``about`` and ``embedding_model``, and its stored vector (bytes), by id."""
    rows = db.execute(
        "SELECT m.id, m.about, m.embedding_model, e.vectors FROM memories m "
        "LEFT JOIN embeddings e ON e.memory_rowid = m.rowid"
    ).fetchall()
    return {r[0]: (r[1], r[2], None if r[3] is None else bytes(r[3])) for r in rows}


@pytest.fixture
def opened(target: str, clock: Clock) -> Iterator[tuple[Database, MemoryEngine]]:
    """The database of ``target`` and an engine on it, closed after the test."""
    db = open_database(target, MEMORY_SCHEMA)
    engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock)
    try:
        yield db, engine
    finally:
        engine.store.close()
        db.close()


@pytest.mark.parametrize("batch", [None, 2])
def test_the_upkeep_stores_the_dates_of_rows_from_before_and_re_embeds_nothing(
    cli: Cli, target: str, clock: Clock, batch: int | None
) -> None:
    db = open_database(target, MEMORY_SCHEMA)
    engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock)
    try:
        clock.now = SAID
        kept, stale = [], []
        for fact, other, _ in FACTS:
            kept.append(engine.remember(fact, SCOPE, created_at=SAID, zone=TOKYO).memory.id)
            later = datetime(2026, 12, 2, 9, tzinfo=TOKYO)
            stale.append(engine.remember(other, SCOPE, created_at=later, zone=TOKYO).memory.id)
        made = _columns(db)
        assert made[kept[0]][0] == made[kept[1]][0] == f"{RULES}:{NOV_30} {NOV_30 + 86400}"
        # the English pair as before 0028_dt29_about_spans (NULL), the Japanese as older rules stored it
        db.execute("UPDATE memories SET about = NULL WHERE id IN (?, ?)", (kept[0], stale[0]))
        db.execute("UPDATE memories SET about = ? WHERE id IN (?, ?)", (f"{RULES - 1}:", kept[1], stale[1]))
        forgotten = engine.remember("We bought a sofa last week", SCOPE).memory.id
        db.execute("UPDATE memories SET about = NULL WHERE id = ?", (forgotten,))
        engine.forget(forgotten)
        before = _columns(db)
        assert engine.get(kept[0]).about is None and engine.get(kept[1]).about is None
        line = _dates_line(cli, target)
        assert line["status"] == "warn" and line["detail"].startswith("4 memories await their dates")
        assert "shitsuji serve" in line["fix"] and "hook server" in line["fix"] and "reindex" in line["fix"]

        if batch is None:
            indexer = engine.index_in_background()  # what ``serve`` and the hook server start
            indexer.join(120)
            assert not indexer.is_alive()
        else:
            assert engine.fill_about(batch=batch) == 5  # three batches, the forgotten row's too
        after = _columns(db)
        # each row's stored dates as its write makes them; vectors and models bit for bit
        filled = {mid: (made[mid][0], *before[mid][1:]) for mid in kept + stale}
        assert after == {**before, **filled, forgotten: (after[forgotten][0], *before[forgotten][1:])}
        assert after[forgotten][0].startswith(f"{RULES}:") and after[forgotten][0] != f"{RULES}:"  # last week
        assert engine.pending() == 0
        assert _dates_line(cli, target) == {
            "name": "dates",
            "status": "ok",
            "detail": "every memory's dates are stored with it",
            "fix": "",
        }
        clock.now = ASKED
        for mid, (fact, _, question) in zip(kept, FACTS, strict=True):
            assert engine.get(mid).about == ((NOV_30, NOV_30 + 86400),)
            assert engine.recall(question, SCOPE, k=3, zone=TOKYO)[0].memory.content == fact
        assert engine.fill_about() == 0  # nothing left: the walk reads no row again
    finally:
        engine.store.close()
        db.close()


def test_a_row_stored_by_these_rules_since_it_was_read_is_left_as_it_is(
    opened: tuple[Database, MemoryEngine],
) -> None:
    db, engine = opened
    mid = engine.remember("昨日、京都に行った", SCOPE, created_at=SAID, zone=TOKYO).memory.id
    db.execute("UPDATE memories SET about = NULL WHERE id = ?", (mid,))
    ((_, read),) = engine.store.about_due(10)
    db.execute("UPDATE memories SET about = ? WHERE id = ?", (f"{RULES}:", mid))  # stored meanwhile
    engine.store.set_about([(read.id, "stale reading")])
    assert db.execute("SELECT about FROM memories WHERE id = ?", (mid,)).fetchone()[0] == f"{RULES}:"


@pytest.mark.parametrize(
    ("fact", "said", "zone"),
    [
        ("We met yesterday", "9999-12-31T23:00:00+00:00", "Asia/Tokyo"),
        ("昨日会った", "0001-01-01T01:00:00+00:00", "America/New_York"),
    ],
)
def test_a_row_whose_dates_cannot_be_held_is_stored_as_such_and_not_read_again(
    opened: tuple[Database, MemoryEngine], fact: str, said: str, zone: str
) -> None:
    # a row from before 0028 said on the calendar's last (first) day: its "yesterday" ("today" in New
    # York) is past the calendar's ends. Until issue 23 (ad30) it stayed NULL and every start read it again
    db, engine = opened
    mid = engine.remember(fact, SCOPE).memory.id
    db.execute(
        "UPDATE memories SET about = NULL, created_at = ?, provenance = ? WHERE id = ?",
        (said, json.dumps({"zone": zone}), mid),
    )
    assert engine.fill_about() == 1
    assert db.execute("SELECT about FROM memories WHERE id = ?", (mid,)).fetchone()[0] == f"{RULES}:?"
    assert engine.get(mid).about is None  # recall reads its text, as for a row not stored
    assert engine.store.count_about_due() == 0
    db.execute("DELETE FROM about_walked")  # walked again from the first row: still not due
    assert engine.fill_about() == 0


def test_a_start_reads_only_the_rows_written_since_the_last_walk(
    opened: tuple[Database, MemoryEngine], clock: Clock
) -> None:
    db, engine = opened
    clock.now = SAID
    ids = [engine.remember(fact, SCOPE, created_at=SAID, zone=TOKYO).memory.id for fact, _, _ in FACTS]
    db.execute("UPDATE memories SET about = NULL")  # as written before 0028
    assert engine.fill_about() == 2
    # a row rewritten in place after the walk (only a process of other rules would) is not read again:
    # the walk starts after the last rowid it looked at (issue 23, ad30: each start read every row)
    db.execute("UPDATE memories SET about = NULL WHERE id = ?", (ids[0],))
    assert engine.fill_about() == 0 and engine.store.count_about_due() == 0
    later = engine.remember("先週、大阪に行った", SCOPE, created_at=SAID, zone=TOKYO).memory.id
    db.execute("UPDATE memories SET about = NULL WHERE id = ?", (later,))
    assert engine.store.count_about_due() == 1
    assert engine.fill_about() == 1  # the row written since
    # a walk by other reading rules than this code's counts for nothing: every row is looked at again
    db.execute("UPDATE about_walked SET rules = ?", (RULES - 1,))
    assert engine.store.count_about_due() == 1
    assert engine.fill_about() == 1
    assert engine.get(ids[0]).about == ((NOV_30, NOV_30 + 86400),)
    # ``reindex`` reads every row: it leaves the mark at the last, and no start walks them again
    db.execute("UPDATE about_walked SET rules = ?", (RULES - 1,))
    engine.reindex()
    assert engine.store.about_walked() == engine.store.last_rowid() and engine.fill_about() == 0
