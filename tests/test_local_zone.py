"""A fact remembered from the command line or the MCP server belongs to the user's day, not UTC's (issue 23).

The household's tools pass the household's zone (lo23d); ``shitsuji remember``, ``shitsuji recall`` and the
MCP server's tools passed none, so 00:30 on 1 January in Tokyo was indexed under UTC's 31 December. They now
take the machine's zone, read once with the settings (``TZ``, else ``/etc/localtime``: ``config.local_zone``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from shitsuji.config import Settings, local_zone
from shitsuji.mcp._server import ProjectMemory
from shitsuji.memory import MemoryEngine, open_store
from shitsuji.memory._engine import memory_terms
from shitsuji.memory._said import said_terms
from shitsuji.memory._text import query_terms

from .conftest import Cli, Clock
from .test_said_terms import memory_target  # noqa: F401  (the same fixture: both engines)

TOKYO = ZoneInfo("Asia/Tokyo")
SCOPE = "fs/home/me/project"


def test_the_machines_zone_is_read_by_its_name(tmp_path: Path) -> None:
    assert local_zone({"TZ": "Asia/Tokyo"}) == TOKYO
    assert local_zone({"TZ": ":Europe/London"}) == ZoneInfo("Europe/London")  # glibc's ":" form
    assert local_zone({"TZ": "/usr/share/zoneinfo/America/New_York"}) == ZoneInfo("America/New_York")
    assert local_zone({"TZ": ""}) is UTC  # set but empty: UTC, as for the C library
    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/Asia/Tokyo")
    assert local_zone({}, localtime=link) == TOKYO  # no TZ: the zone the machine's link names
    assert Settings.from_env({"TZ": "Asia/Tokyo"}).time_zone == TOKYO


@pytest.fixture
def posix_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("posix_tz")
def test_a_posix_rule_is_the_offset_the_c_library_reads_from_it() -> None:
    zone = local_zone({"TZ": "JST-9"})
    assert zone.utcoffset(None) == timedelta(hours=9)


@pytest.mark.parametrize(
    ("fact", "question"),
    [
        ("We went to the shrine and drew a great blessing", "1 January 2027"),
        ("初詣で大吉を引いた", "2027年1月1日"),
    ],
)
def test_the_mcp_tools_index_a_fact_under_the_users_day(
    engine: MemoryEngine, clock: Clock, fact: str, question: str
) -> None:
    clock.now = datetime(2026, 12, 31, 15, 30, tzinfo=UTC)  # 00:30 on 1 January 2027 in Tokyo
    saved = ProjectMemory(engine, SCOPE, zone=TOKYO).remember(fact, "event")
    stored = engine.get(saved["id"])
    assert stored.provenance["zone"] == "Asia/Tokyo"
    assert memory_terms(stored).split()[-3:] == ["1", "januari", "2027"]  # Tokyo's day, not UTC's 31st
    found = engine.store.keyword_search(query_terms(question), [SCOPE], 5)
    assert [m.memory_id for m in found] == [saved["id"]]


@pytest.mark.parametrize("question", ["what did we plant last month?", "先月何を植えた？"])
def test_the_mcp_recall_reads_last_month_in_the_users_calendar(
    engine: MemoryEngine, clock: Clock, question: str
) -> None:
    # asked at 00:30 on 1 January 2027 in Tokyo (31 December in UTC): last month is December in Tokyo,
    # November in UTC; the same words said on 20 November and on 5 December
    clock.now = datetime(2026, 11, 20, 3, tzinfo=UTC)
    november = ProjectMemory(engine, SCOPE, zone=TOKYO).remember(
        "We planted tulips by the gate, 門の横にチューリップを植えた", "event"
    )
    clock.now = datetime(2026, 12, 5, 3, tzinfo=UTC)
    december = ProjectMemory(engine, SCOPE, zone=TOKYO).remember(
        "A lemon tree from the garden centre, planted: レモンの木を植えた", "event"
    )
    clock.now = datetime(2026, 12, 31, 15, 30, tzinfo=UTC)
    in_tokyo = ProjectMemory(engine, SCOPE, zone=TOKYO).recall(question)["hits"]
    in_utc = ProjectMemory(engine, SCOPE).recall(question)["hits"]
    assert in_tokyo[0]["id"] == december["id"]
    assert in_utc[0]["id"] == november["id"]


def test_an_mcp_server_given_no_zone_keeps_utcs_day(engine: MemoryEngine, clock: Clock) -> None:
    clock.now = datetime(2026, 12, 31, 15, 30, tzinfo=UTC)
    saved = ProjectMemory(engine, SCOPE).remember("初詣で大吉を引いた", "event")
    assert engine.get(saved["id"]).provenance["zone"] == "UTC+00:00"
    assert memory_terms(engine.get(saved["id"])).split()[-3:] == ["31", "decemb", "2026"]


@pytest.mark.parametrize("name", ["Etc/GMT-14", "Etc/GMT+12"])  # UTC+14 and UTC-12
@pytest.mark.parametrize("fact", ["We planted the tulip bulbs", "チューリップの球根を植えた"])
def test_shitsuji_remember_indexes_the_fact_under_the_machines_day(
    cli: Cli, db_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, fact: str
) -> None:
    # the command line's clock is the real one: at any hour one of these zones is on another day than
    # UTC, and the fact must sit on the zone's day either way
    monkeypatch.setenv("TZ", name)
    run = cli("remember", fact, "--scope", SCOPE, "--json")
    assert run.code == 0, run.err
    store = open_store(str(db_path))
    try:
        stored = store.get(run.json()["id"])
    finally:
        store.close()
    assert stored is not None and stored.provenance["zone"] == name
    assert memory_terms(stored).split()[-3:] == said_terms(stored.created_at, ZoneInfo(name))
