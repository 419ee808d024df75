"""A memory belongs to the day it was said in the speaker's time zone (issue 23, lo23d).

00:30 on 1 January 2027 in Tokyo is 15:30 on 31 December 2026 in UTC: indexed under UTC's day, "what
did we do on 1 January 2027?" missed the fact and 「2026年12月31日」 found it. The writer passes the
household's zone; the memory keeps its name (``provenance["zone"]``), so reindex, export/import and
ranking find the same day. On both engines, with a engine clock.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from shitsuji.agent import Conversations
from shitsuji.household import HouseholdStore
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.memory import MemoryEngine
from shitsuji.memory._engine import index_terms, memory_terms
from shitsuji.memory._extract import Extractor, Turn
from shitsuji.memory._records import Hit, Memory
from shitsuji.memory._said import said_terms, said_zone, stamp_zone, zone_name, zone_named
from shitsuji.memory._text import query_terms
from shitsuji.memory._transfer import export_lines, import_items, parse_lines
from shitsuji.memory._when import asked_span, in_span
from shitsuji.store import database
from shitsuji.web._member import Member
from shitsuji.web._memories import MemoryBrowser

from .conftest import Clock
from .test_household import call, member
from .test_said_terms import memory_target  # noqa: F401  (the same fixture: both engines)

TOKYO = ZoneInfo("Asia/Tokyo")
NEW_YEAR = datetime(2027, 1, 1, 0, 30, tzinfo=TOKYO)  # 2026-12-31 15:30 UTC
SCOPE = "household/futari"


def test_the_day_is_the_speakers() -> None:
    assert said_terms(NEW_YEAR, TOKYO) == ["1", "januari", "2027"]
    assert said_terms(NEW_YEAR) == ["31", "decemb", "2026"]  # no zone: UTC's day, as before
    late = datetime(2026, 12, 3, 23, 30, tzinfo=TOKYO)  # 23:30 in Tokyo is still 3 December there
    assert said_terms(late, TOKYO) == ["3", "decemb", "2026"]
    honolulu = ZoneInfo("Pacific/Honolulu")  # 23:30 there is 09:30 UTC the next day
    assert said_terms(datetime(2026, 12, 3, 23, 30, tzinfo=honolulu), honolulu)[0] == "3"
    assert said_terms(datetime(2026, 12, 3, 23, 30, tzinfo=honolulu))[0] == "4"
    assert index_terms("初詣に行った", said_at=NEW_YEAR, zone=TOKYO).split()[-3:] == ["1", "januari", "2027"]


@pytest.mark.parametrize(
    ("zone", "name"),
    [
        (TOKYO, "Asia/Tokyo"),
        (UTC, "UTC+00:00"),
        (timezone(timedelta(hours=9)), "UTC+09:00"),
        (timezone(timedelta(hours=-3, minutes=-30)), "UTC-03:30"),
    ],
)
def test_a_zone_is_kept_by_a_name_read_back_as_the_same_offset(zone: timezone, name: str) -> None:
    assert zone_name(zone) == name
    assert zone_named(name).utcoffset(NEW_YEAR) == zone.utcoffset(NEW_YEAR)


def test_a_missing_or_unknown_zone_is_utc_and_an_import_keeps_its_own() -> None:
    assert said_zone({}) is UTC
    assert said_zone({"zone": "Mars/Olympus"}) is UTC and said_zone({"zone": 9}) is UTC
    assert stamp_zone({"by": "wife"}, TOKYO) == {"by": "wife", "zone": "Asia/Tokyo"}
    assert stamp_zone({"zone": "Europe/London"}, TOKYO) == {"zone": "Europe/London"}
    assert stamp_zone(None, None) == {}


def _first(engine: MemoryEngine, question: str) -> str:
    return engine.store.keyword_search(query_terms(question), [SCOPE], 10)[0].memory_id


def test_a_fact_said_after_midnight_in_tokyo_is_found_by_tokyos_day(engine: MemoryEngine) -> None:
    # the same words said twice, once with the speaker's zone and once without: the day tells them apart
    tokyo = engine.remember("We went to the shrine together", SCOPE, created_at=NEW_YEAR, zone=TOKYO).memory
    engine.remember(
        "We went to the shrine with the neighbours",
        SCOPE,
        created_at=datetime(2026, 12, 20, 12, tzinfo=UTC),
    )
    assert tokyo.provenance == {"zone": "Asia/Tokyo"}
    assert _first(engine, "Where did we go on 1 January 2027?") == tokyo.id
    assert _first(engine, "2027年1月1日はどこに行った？") == tokyo.id
    # and rebuilding its terms from the stored row (``reindex``) gives the same day
    assert memory_terms(engine.get(tokyo.id)).split()[-3:] == ["1", "januari", "2027"]


def test_without_the_zone_the_same_fact_sits_on_utcs_day(engine: MemoryEngine) -> None:
    utc = engine.remember("We went to the shrine together", SCOPE, created_at=NEW_YEAR).memory
    other = engine.remember(
        "We went to the shrine with the neighbours", SCOPE, created_at=datetime(2027, 1, 1, 12, tzinfo=UTC)
    ).memory
    assert "zone" not in utc.provenance
    assert _first(engine, "Where did we go on 1 January 2027?") == other.id


def test_export_and_import_keep_the_speakers_day(engine: MemoryEngine) -> None:
    said = engine.remember("初詣に行った", SCOPE, created_at=NEW_YEAR, zone=TOKYO).memory
    line = json.loads(next(export_lines([said])))
    line["scope"], line["id"] = "household/tonari", None
    import_items(engine, parse_lines([json.dumps(line, ensure_ascii=False)]))
    (back,) = engine.list_memories("household/tonari")
    assert back.provenance["zone"] == "Asia/Tokyo"
    found = engine.store.keyword_search(query_terms("1 January 2027"), ["household/tonari"], 10)
    assert [m.memory_id for m in found] == [back.id]


def test_yesterday_in_a_tokyo_fact_is_tokyos_yesterday_for_an_asker_in_utc() -> None:
    # said at 10:00 on 1 January in Tokyo (01:00 UTC): its "yesterday" is 31 December in Tokyo, which
    # began at 15:00 UTC on the 30th; read in UTC it would be UTC's 31 December
    said = datetime(2027, 1, 1, 10, tzinfo=TOKYO)
    asked = asked_span("what did we do 3 days ago?", datetime(2027, 1, 2, 12, tzinfo=UTC))
    assert asked == (datetime(2026, 12, 30, tzinfo=UTC), datetime(2026, 12, 31, tzinfo=UTC))
    assert in_span(Hit(_memory("昨日は大掃除をした", said, {"zone": "Asia/Tokyo"}), 1.0), asked, UTC)
    assert not in_span(Hit(_memory("昨日は大掃除をした", said, {}), 1.0), asked, UTC)


def _memory(content: str, said: datetime, provenance: dict[str, str]) -> Memory:
    return Memory("m1", SCOPE, content, "misc", 0.5, "remembered", provenance, said, said, "h")


def test_the_household_tools_and_extraction_index_under_the_households_day(
    target: str, engine: MemoryEngine, clock: Clock
) -> None:
    clock.now = datetime(2026, 12, 31, 15, 30, tzinfo=UTC)  # 00:30 on 1 January 2027 in Tokyo
    households = HouseholdStore(database(target), clock=clock)
    try:
        households.create("futari", ["wife", "husband"], time_zone="Asia/Tokyo")
        wife = member(households, engine, "wife", "app")
        assert call(wife, "remember", content="初詣で大吉を引いた", category="event") == "remembered"
        model = ScriptedModel(
            [
                text_response(
                    json.dumps([{"fact": "夫は甘酒が好き", "category": "preference", "importance": 0.9}])
                )
            ]
        )
        extractor = Extractor(model, engine, zone_of=households.zone)
        turns = [Turn("user", "夫は甘酒が好きなの", "m1")]
        asyncio.run(extractor.extract(turns, wife.scope, {"household": "futari"}))
    finally:
        households.close()
    stored = list(engine.list_memories(wife.scope))
    assert sorted(m.provenance["zone"] for m in stored) == ["Asia/Tokyo", "Asia/Tokyo"]
    assert {m.content for m in stored} == {"初詣で大吉を引いた", "夫は甘酒が好き"}
    assert all(memory_terms(m).split()[-3:] == ["1", "januari", "2027"] for m in stored)


def test_the_memories_page_searches_in_the_households_calendar(
    target: str, engine: MemoryEngine, clock: Clock
) -> None:
    # 00:30 on 1 December in Tokyo, 30 November in UTC: "last month" is November there, October in UTC
    clock.now = datetime(2026, 11, 30, 15, 30, tzinfo=UTC)
    households = HouseholdStore(database(target), clock=clock)
    try:
        households.create("futari", ["wife", "husband"], time_zone="Asia/Tokyo")
        engine.remember("Groceries come on Thursdays", SCOPE, created_at=datetime(2026, 6, 1, tzinfo=UTC))
        engine.remember(
            "We bought a lamp for the kitchen", SCOPE, created_at=datetime(2026, 11, 10, tzinfo=TOKYO)
        )
        engine.remember(
            "We bought a kettle for the kitchen", SCOPE, created_at=datetime(2026, 10, 5, tzinfo=TOKYO)
        )
        browser = MemoryBrowser(engine, households, Conversations(database(target)))
        found = browser.browse(Member("futari", "wife"), query="what did we buy for the kitchen last month?")
    finally:
        households.close()
    assert [m["content"] for m in found][:2] == [
        "We bought a lamp for the kitchen",
        "We bought a kettle for the kitchen",
    ]
