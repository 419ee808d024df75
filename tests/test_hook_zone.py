"""The prompt hook reads "last month" / 先月 in the user's calendar, not UTC's (issue 23, hk26).

The hook's recall passed no time zone, so a prompt asked at 00:30 on 1 January in Tokyo was read on
UTC's 31 December: "last month" was November. The hook alone and the hook server now take
``Settings.time_zone`` (``config.local_zone``, read once at start-up) down to the recall.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from shitsuji.hooks._payload import parse_payload
from shitsuji.hooks._prompt import answer_event
from shitsuji.hooks._server import HookServer
from shitsuji.memory import MemoryEngine
from shitsuji.memory._project import project_scope

from .conftest import Clock
from .test_said_terms import memory_target  # noqa: F401  (the same fixture: both engines)

TOKYO = ZoneInfo("Asia/Tokyo")
NOVEMBER = "We planted tulips in the garden by the gate, 庭の門の横にチューリップを植えた"
DECEMBER = "A lemon tree from the garden centre, planted: 庭にレモンの木を植えた"


@pytest.fixture
def project(engine: MemoryEngine, clock: Clock, tmp_path: Path) -> Iterator[Path]:
    """The same words said on 20 November and on 5 December; asked at 00:30 on 1 January 2027 in Tokyo
    (15:30 on 31 December in UTC), where last month is December — in UTC it is November."""
    folder = tmp_path / "garden"
    for when, text in (
        (datetime(2026, 11, 20, 3, tzinfo=UTC), NOVEMBER),
        (datetime(2026, 12, 5, 3, tzinfo=UTC), DECEMBER),
    ):
        clock.now = when
        engine.remember(text, project_scope(folder), category="event")
    clock.now = datetime(2026, 12, 31, 15, 30, tzinfo=UTC)
    yield folder


def payload(prompt: str, cwd: Path) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(cwd), "prompt": prompt})


def first_shown(out: str) -> str:
    """The best memory the hook shows (the line after the header)."""
    lines = out.splitlines()
    assert len(lines) >= 2, out
    return lines[1]


@pytest.mark.parametrize("prompt", ["what did we plant in the garden last month?", "先月、庭に何を植えた？"])
def test_the_hook_reads_last_month_in_the_users_zone(
    engine: MemoryEngine, project: Path, prompt: str
) -> None:
    event = parse_payload(payload(prompt, project))
    assert "lemon" in first_shown(answer_event(engine, event, plain=True, zone=TOKYO))
    assert "tulips" in first_shown(answer_event(engine, event, plain=True))  # no zone given: UTC's calendar


def test_the_hook_server_answers_in_the_zone_it_started_with(
    engine: MemoryEngine, project: Path, db_path: Path, tmp_path: Path
) -> None:
    prompt = "what did we plant in the garden last month?"
    request = {"v": 1, "payload": payload(prompt, project), "k": 5, "budget": 2000, "plain": True}
    line = json.dumps(request).encode()
    in_tokyo = HookServer(engine, db_path, tmp_path / "t.sock", idle_timeout=60, zone=TOKYO)
    in_utc = HookServer(engine, db_path, tmp_path / "u.sock", idle_timeout=60)
    assert "lemon" in first_shown(in_tokyo.answer(line)["out"])
    assert "tulips" in first_shown(in_utc.answer(line)["out"])
