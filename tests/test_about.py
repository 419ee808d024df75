"""The dates a fact is about, stored with its row when it is written (issue 23, dt29).

"Yesterday we travelled to Kyoto", said at 08:00 on 1 December in Tokyo, is about 30 November there. The
write keeps that span with the row (``_about``, ``memories.about``), in the writer's zone; a span
question reads it with the row instead of parsing every candidate's text. A row from before the
column is read from its text (and ``reindex`` fills it); an edit stores its new words' spans. Both
engines, with a fixed clock.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._records import Hit, Memory
from shitsuji.memory._transfer import export_lines, import_items, parse_lines
from shitsuji.memory._when import asked_span, in_span
from shitsuji.store import close_databases

from .conftest import Clock

TOKYO = ZoneInfo("Asia/Tokyo")
SCOPE = "household/futari"
SAID = datetime(2026, 12, 1, 8, tzinfo=TOKYO)  # 23:00 on 30 November in UTC
ASKED = datetime(2026, 12, 3, 12, tzinfo=TOKYO)  # "last month" is Tokyo's November


def seconds(*day: int, days: int = 1) -> tuple[int, int]:
    start = int(datetime(*day, tzinfo=TOKYO).timestamp())  # type: ignore[misc]
    return start, start + days * 86400


# each language: the fact (said on 1 December, about 30 November), an unrelated one said after it,
# which wins on words and recency alone, and a question about last month
FACTS = {
    "en": (
        "Yesterday we travelled to Kyoto",
        "Where should we travel? We like to travel by train",
        "Where did we travel last month?",
    ),
    "ja": ("昨日、京都に行った", "どこに行ったか忘れた", "先月どこに行った？"),
}


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def _engine(target: str, clock: Clock) -> MemoryEngine:
    return MemoryEngine(open_store(target), HashEmbedder(), clock=clock)


def _restart(engine: MemoryEngine, target: str, clock: Clock) -> MemoryEngine:
    engine.store.close()
    close_databases()
    return _engine(target, clock)


def _first(engine: MemoryEngine, question: str, scope: str = SCOPE) -> str:
    return engine.recall(question, scope, k=3, zone=TOKYO)[0].memory.content


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_fact_is_stored_with_the_days_it_is_about_and_a_span_question_finds_it_after_a_restart(
    memory_target: str, clock: Clock, language: str
) -> None:
    fact, other, question = FACTS[language]
    engine = _engine(memory_target, clock)
    clock.now = SAID
    kept = engine.remember(fact, SCOPE, created_at=SAID, zone=TOKYO).memory
    engine.remember(other, SCOPE, created_at=datetime(2026, 12, 2, 9, tzinfo=TOKYO), zone=TOKYO)
    clock.now = ASKED
    engine = _restart(engine, memory_target, clock)
    # 30 November in Tokyo, not UTC's (said at 23:00 UTC on the 30th, UTC's "yesterday" is the 29th)
    assert engine.get(kept.id).about == (seconds(2026, 11, 30),)
    assert _first(engine, question) == fact
    # without the span rule the newer fact holding more of the words comes first: the stored day decides
    engine.weights = replace(engine.weights, favour_span=False)
    assert _first(engine, question) == other
    # an import stores the same span (said time and zone come with the line)
    line = next(export_lines([engine.get(kept.id)])).replace(f'"{kept.id}"', "null")
    import_items(engine, parse_lines([line.replace(SCOPE, "household/tonari")]))
    (imported,) = engine.list_memories("household/tonari")
    assert imported.about == (seconds(2026, 11, 30),)
    engine.store.close()


# NULL: written before ``0028_dt29_about_spans``; "0:": stored by an older reading that found no span
@pytest.mark.parametrize("stored", [None, "0:"])
def test_a_row_stored_before_its_dates_were_is_still_found_and_reindex_stores_them(
    memory_target: str, clock: Clock, stored: str | None
) -> None:
    fact, other, question = FACTS["ja"]
    engine = _engine(memory_target, clock)
    kept = engine.remember(fact, SCOPE, created_at=SAID, zone=TOKYO).memory
    engine.remember(other, SCOPE, created_at=datetime(2026, 12, 2, 9, tzinfo=TOKYO), zone=TOKYO)
    with engine.store.write() as tx:
        tx.execute("UPDATE memories SET about = ?", (stored,))
    engine = _restart(engine, memory_target, clock)
    clock.now = ASKED
    assert engine.get(kept.id).about is None
    assert _first(engine, question) == fact  # read from its text, as before
    engine.reindex()
    assert engine.get(kept.id).about == (seconds(2026, 11, 30),)
    assert _first(engine, question) == fact
    engine.store.close()


def test_an_edited_fact_is_stored_with_its_new_words_days(memory_target: str, clock: Clock) -> None:
    engine = _engine(memory_target, clock)
    clock.now = SAID
    old = engine.remember("We went to Kyoto last week", SCOPE, zone=TOKYO).memory
    engine.remember("We went to the park", SCOPE, created_at=datetime(2026, 12, 2, 9, tzinfo=TOKYO))
    assert engine.get(old.id).about == (seconds(2026, 11, 23, days=7),)
    edited = engine.edit(old.id, content="We went to Kyoto last month")  # said now, on 1 December
    engine = _restart(engine, memory_target, clock)
    assert engine.get(edited.id).about == (seconds(2026, 11, 1, days=30),)
    clock.now = datetime(2026, 12, 20, tzinfo=TOKYO)
    assert _first(engine, "where did we go last month?") == "We went to Kyoto last month"
    engine.store.close()


def test_a_date_past_the_calendar_s_end_fails_neither_the_write_nor_a_span_question(
    memory_target: str, clock: Clock
) -> None:
    engine = _engine(memory_target, clock)
    capsule = engine.remember("The time capsule opens on 9999-12-31, not in March 0000", SCOPE).memory
    assert engine.recall("what did we bury 10000 years ago?", SCOPE)[0].memory.id == capsule.id
    assert engine.recall("what did we bury last week?", SCOPE, zone=TOKYO)[0].memory.id == capsule.id
    assert engine.get(capsule.id).about == ()
    engine.store.close()


def test_the_stored_days_are_read_in_the_zone_they_were_made_in() -> None:
    # said at 10:00 on 1 January in Tokyo; its row holds 31 December in Tokyo (what its text is about)
    said = datetime(2027, 1, 1, 10, tzinfo=TOKYO)
    stored = (seconds(2026, 12, 31),)
    asked = asked_span("what did we do 2 days ago?", datetime(2027, 1, 2, 12, tzinfo=TOKYO), TOKYO)
    assert asked == (datetime(2026, 12, 31, tzinfo=TOKYO), datetime(2027, 1, 1, tzinfo=TOKYO))

    def hit(provenance: dict[str, str], about: tuple[tuple[int, int], ...] | None) -> Hit:
        memory = Memory("m1", SCOPE, "大掃除をした", "misc", 0.5, "remembered", provenance, said, said, "h")
        return Hit(replace(memory, about=about), 1.0)

    # the row's own zone: its stored days are read, not its words (which name no day)
    assert in_span(hit({"zone": "Asia/Tokyo"}, stored), asked, TOKYO)
    assert not in_span(hit({"zone": "Asia/Tokyo"}, ()), asked, TOKYO)
    # a row that kept no zone was stored in UTC's days: an asker in Tokyo has its words read in Tokyo's
    assert not in_span(hit({}, stored), asked, TOKYO)
    assert in_span(hit({}, stored), asked, UTC)
