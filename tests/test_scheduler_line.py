"""The scheduler's pushes against the fake Messaging API: the fake refuses what LINE refuses, and a
sender killed (``kill -9``, a real process) after LINE took its push leaves a row that another worker
finishes without a second message."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from shitsuji.line import FakeLineAPI, LineSettings, Messenger, retry_key
from shitsuji.schedule import LEASE

from .line_support import SECRET, TOKEN, WIFE
from .pg_support import database_env
from .schedule_support import household

PUSH = "/v2/bot/message/push"


def _push(
    fake: FakeLineAPI, body: dict[str, Any], *, token: str = TOKEN, key: str | None = None
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} | ({"X-Line-Retry-Key": key} if key else {})
    return httpx.post(fake.url + PUSH, json=body, headers=headers, timeout=30)


def test_the_fake_push_endpoint_refuses_what_line_refuses() -> None:
    text = {"type": "text", "text": "こんにちは"}
    key = retry_key("d|futari|wife|2026-12-01", 0)
    with FakeLineAPI(TOKEN) as fake:
        assert _push(fake, {"to": WIFE, "messages": [text]}, token="wrong").status_code == 401
        assert _push(fake, {"to": WIFE, "messages": [text] * 6}).status_code == 400
        assert _push(fake, {"to": WIFE, "messages": []}).status_code == 400
        assert _push(fake, {"messages": [text]}).status_code == 400
        assert _push(fake, {"to": WIFE, "messages": [text]}, key="not-a-uuid").status_code == 400
        assert fake.of("push") == []
        assert _push(fake, {"to": WIFE, "messages": [text] * 5}, key=key).status_code == 200
        assert _push(fake, {"to": WIFE, "messages": [text]}, key=key).status_code == 409
        assert [len(p.messages) for p in fake.of("push")] == [5]


def test_the_sdk_treats_a_repeated_retry_key_as_delivered_and_a_wrong_token_as_an_error() -> None:
    from shitsuji.line import LineApiError

    async def go(fake: FakeLineAPI) -> None:
        settings = LineSettings(SECRET, TOKEN, fake.url, 100.0)
        async with Messenger(settings) as line:
            for _ in range(2):  # the second is answered 409: it went out already
                await line.push(WIFE, [{"type": "text", "text": "⏰"}], retry_key("r|x", 0))
        async with Messenger(LineSettings(SECRET, "wrong", fake.url, 100.0)) as line:
            try:
                await line.push(WIFE, [{"type": "text", "text": "⏰"}], retry_key("r|y", 0))
            except LineApiError as exc:
                assert exc.status == 401
            else:
                raise AssertionError("a wrong token was accepted")

    with FakeLineAPI(TOKEN) as fake:
        asyncio.run(go(fake))
        assert len(fake.of("push")) == 1
        assert [h.get("x-line-retry-key") for p, h in fake.requests if p == PUSH] == [
            retry_key("r|x", 0)
        ] * 2 + [retry_key("r|y", 0)]


def test_a_sender_killed_after_line_took_the_push_is_finished_by_another_without_a_second(
    target: str,
) -> None:
    real = datetime.now(UTC).replace(microsecond=0)
    with household(target, start=(real - timedelta(minutes=15)).isoformat()) as home:
        home.settings("wife", reminders=True, lead_minutes=30)
        starts = (real + timedelta(minutes=29)).astimezone(ZoneInfo("Asia/Tokyo")).replace(tzinfo=None)
        home.store.add_event("futari", "病院", starts.isoformat(timespec="seconds"), by="wife")
        release = home.fake.hold_pushes()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
        env |= {
            **database_env(target),
            "SHITSUJI_LINE_CHANNEL_SECRET": SECRET,
            "SHITSUJI_LINE_CHANNEL_TOKEN": TOKEN,
            "SHITSUJI_LINE_API_URL": home.fake.url,
        }
        victim = subprocess.Popen(
            [sys.executable, "-m", "shitsuji", "remind", "run", "--once"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not home.fake.of("push"):  # LINE has the push; the sender waits for the answer
            assert time.monotonic() < deadline and victim.poll() is None, (
                victim.stderr and victim.stderr.read()
            )
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=30)
        assert list(home.statuses().values()) == ["sending"]
        release.set()

        home.clock.set(datetime.now(UTC) + LEASE + timedelta(seconds=5))  # the dead sender's lease is over
        done = home.tick()
        assert done.pushed == 1  # LINE answered 409 for the retry key it had: marked sent
        assert list(home.statuses().values()) == ["sent"]
        assert len(home.fake.of("push")) == 1
        keys = [h.get("x-line-retry-key") for p, h in home.fake.requests if p == PUSH]
        assert len(keys) == 2 and keys[0] == keys[1]
