"""``/metrics``: Prometheus text that moves with a scripted conversation and a LINE event, and never holds
a member's words or memories."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shitsuji.llm import ModelResponse, Usage

from .line_support import WIFE, LineSite, line_site
from .web_support import HOME, PASSWORD

SECRET_WORDS = "秘密の合言葉はシマエナガ"
SECRET_ANSWER = "かしこまりました、シマエナガのことは覚えておきます"
SAMPLE = re.compile(r"^([a-z_]+)(\{[^}]*\})? (\S+)$")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[LineSite]:
    with line_site(tmp_path / "metrics.db") as running:
        yield running


def scrape(site: LineSite) -> tuple[dict[str, float], str]:
    """Every sample of a scrape by its series (name and labels), after checking the text format; the text."""
    answer = httpx.get(f"{site.url}/metrics", timeout=30)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    values: dict[str, float] = {}
    for line in answer.text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-z_]+ ", line), line
            continue
        found = SAMPLE.match(line)
        assert found, f"not a Prometheus sample: {line!r}"
        values[found.group(1) + (found.group(2) or "")] = float(found.group(3))
    return values, answer.text


def _chat(site: LineSite, text: str) -> None:
    with httpx.Client(base_url=site.url, timeout=60) as client:
        wrong = client.post("/api/session", json={"user": "wife", "password": "nope", "household": HOME})
        assert wrong.status_code == 400
        signed = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": HOME})
        csrf = signed.json()["csrf"]
        with client.stream("POST", "/api/chat", json={"message": text}, headers={"X-CSRF-Token": csrf}) as s:
            events = [line for line in s.iter_lines() if line.startswith("event: ")]
        assert "event: done" in events, events


def test_metrics_move_with_a_conversation_and_a_line_event_and_hold_no_personal_text(site: LineSite) -> None:
    before, _ = scrape(site)
    usage = Usage(input_tokens=1200, output_tokens=30, cache_read_input_tokens=1000)
    site.script.then(ModelResponse([{"type": "text", "text": SECRET_ANSWER}], "end_turn", usage=usage))
    _chat(site, SECRET_WORDS)
    site.link(WIFE, "wife")
    site.say(WIFE, SECRET_WORDS + "（LINEから）")
    site.settled()
    after, text = scrape(site)

    def moved(series: str) -> float:
        return after.get(series, 0.0) - before.get(series, 0.0)

    assert moved('shitsuji_turn_seconds_count{channel="app",mode="task",outcome="answered"}') == 1
    assert moved('shitsuji_turn_seconds_count{channel="line",mode="task",outcome="answered"}') == 1
    assert moved('shitsuji_model_tokens_total{kind="input"}') >= 1200
    assert moved('shitsuji_model_tokens_total{kind="cache_read"}') >= 1000
    assert moved('shitsuji_sign_in_refusals_total{reason="wrong_user_or_password"}') == 1
    assert 'shitsuji_line_inbox_events{status="pending"} 0' in text  # the event was answered
    assert "shitsuji_line_inbox_oldest_seconds 0" in text
    assert after["shitsuji_event_loop_lag_seconds_count"] > 0
    assert "shitsuji_model_errors_total" in text and "shitsuji_model_retries_total" in text
    # names chosen by the code only: no words, no answer, no memory, no member or LINE user id
    for personal in (SECRET_WORDS, "シマエナガ", SECRET_ANSWER, "wife", WIFE, HOME):
        assert personal not in text
    assert all(ord(c) < 128 for c in text)


def test_the_inbox_gauges_show_an_event_waiting(tmp_path: Path) -> None:
    """With no worker running, a stored LINE event is pending and its wait grows."""
    with line_site(tmp_path / "waiting.db", run_worker=False) as waiting:
        waiting.link(WIFE, "wife")
        waiting.say(WIFE, "まだ答えないで")
        values, _ = scrape(waiting)
        assert values['shitsuji_line_inbox_events{status="pending"}'] == 1
        assert values["shitsuji_line_inbox_oldest_seconds"] >= 0
        assert values["shitsuji_model_ready"] == 1
