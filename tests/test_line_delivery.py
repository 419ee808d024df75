"""Delivery to LINE: 429s retried with backoff (and handed back to the durable queue when they last),
pushes under a rate limit and never twice for one retry key, and a worker killed mid-turn whose event
another worker finishes once — the person gets one answer."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from shitsuji.line import FakeLineAPI, LineApp, LineSettings, Messenger, RateLimiter
from shitsuji.line._fake import PUSH, REPLY
from shitsuji.llm import text_response
from shitsuji.store import database

from .fake_anthropic import FakeMessagesAPI
from .line_support import SECRET, TOKEN, WIFE, LineSite, Script, line_site, make_butler, text_event
from .pg_support import database_env, processes_can_use


@pytest.fixture
def site(target: str) -> Iterator[LineSite]:
    with line_site(target) as running:
        running.link(WIFE, "wife")
        yield running


def test_a_429_on_the_reply_is_retried_after_retry_after_and_answered_once(site: LineSite) -> None:
    site.fake.fail_next(REPLY, 429, times=2, retry_after=0.05)
    site.say(WIFE, "こんにちは")
    site.settled()
    assert site.answers(WIFE) == ["はい"] and len(site.fake.of("reply")) == 1
    assert [p for p, _ in site.fake.requests].count(REPLY) == 3


def test_a_429_that_lasts_puts_the_event_back_and_it_is_pushed_once_later(target: str) -> None:
    with line_site(target, run_worker=False) as site:
        site.link(WIFE, "wife")
        site.fake.fail_next(PUSH, 429, times=4, retry_after=0.01)
        sent = text_event(WIFE, "こんにちは")  # no reply token: a push
        site.post(sent)
        assert asyncio.run(site.line.worker.drain()) == 1
        status, attempts, error = site.line.inbox.status(sent["webhookEventId"]) or ("", 0, "")
        assert status == "pending" and attempts == 1 and "429" in (error or "")
        assert site.fake.of("push") == [] and len(site.script.requests) == 1
        site.line.inbox.clock = lambda: datetime.now(UTC) + timedelta(seconds=5)  # the backoff has passed
        assert asyncio.run(site.line.worker.drain()) == 1
        assert site.line.inbox.status(sent["webhookEventId"])[0] == "done"  # type: ignore[index]
        [push] = site.fake.of("push")
        assert (
            push.texts() == ["はい"] and len(site.script.requests) == 1
        )  # the stored answer, not a new turn


def test_a_repeated_push_with_the_same_retry_key_is_delivered_once() -> None:
    async def twice(fake: FakeLineAPI) -> None:
        async with Messenger(LineSettings(SECRET, TOKEN, fake.url, 100.0)) as line:
            for _ in range(2):
                await line.push(
                    WIFE,
                    [{"type": "text", "text": "牛乳を入れました"}],
                    "3f1b6c9e-0000-4000-8000-000000000001",
                )

    with FakeLineAPI(TOKEN) as fake:
        asyncio.run(twice(fake))
        assert len(fake.of("push")) == 1 and [p for p, _ in fake.requests].count(PUSH) == 2


def test_a_wrong_channel_token_is_an_error_that_names_the_setting() -> None:
    async def push(fake: FakeLineAPI) -> None:
        async with Messenger(LineSettings(SECRET, "wrong", fake.url, 100.0)) as line:
            await line.push(WIFE, [{"type": "text", "text": "x"}], "3f1b6c9e-0000-4000-8000-000000000002")

    with FakeLineAPI(TOKEN) as fake, pytest.raises(Exception, match="SHITSUJI_LINE_CHANNEL_TOKEN"):
        asyncio.run(push(fake))


def test_the_limiter_keeps_pushes_under_the_rate() -> None:
    async def burst() -> float:
        limiter = RateLimiter(50.0, burst=5)
        start = time.monotonic()
        for _ in range(30):
            await limiter.acquire()
        return time.monotonic() - start

    elapsed = asyncio.run(burst())
    assert 0.4 <= elapsed < 2.0  # 5 at once, then 25 at 50/s


def test_a_worker_killed_mid_turn_leaves_the_event_to_another_which_answers_once(target: str) -> None:
    processes_can_use(target)
    with line_site(target, run_worker=False) as site, FakeMessagesAPI().running() as model_api:
        site.link(WIFE, "wife")
        sent = site.say(WIFE, "牛乳買っといて")
        model_api.reply(text_response("task"))  # the router
        model_api.reply(text_response("遅すぎる返事"), delay_s=60.0)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
        env |= {
            **database_env(target),
            "SHITSUJI_EMBEDDER": "hash",
            "ANTHROPIC_BASE_URL": model_api.url,
            "ANTHROPIC_API_KEY": "test-key",
            "SHITSUJI_EXTRACTION_OFF_CHANNELS": "line",
            "SHITSUJI_LINE_CHANNEL_SECRET": SECRET,
            "SHITSUJI_LINE_CHANNEL_TOKEN": TOKEN,
            "SHITSUJI_LINE_API_URL": site.fake.url,
        }
        victim = subprocess.Popen(
            [sys.executable, "-m", "shitsuji", "worker", "--poll", "0.1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while len(model_api.requests) < 2:  # mid-turn: words stored, the model asked
            assert time.monotonic() < deadline and victim.poll() is None, (
                victim.stderr and victim.stderr.read()
            )
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=10)
        assert site.line.inbox.status(sent["webhookEventId"])[0] == "running"  # type: ignore[index]
        assert [s.kind for s in site.fake.sent] == ["loading"]

        # another worker, two minutes later: the dead one's leases have run out
        later = lambda: datetime.now(UTC) + timedelta(minutes=4)  # noqa: E731
        script = Script().then(text_response("牛乳、入れておきます。"))
        butler = make_butler(target, script)
        butler.claims.clock = later
        again = LineApp(butler, LineSettings(SECRET, TOKEN, site.fake.url, 100.0), clock=later)
        try:
            assert asyncio.run(again.worker.drain()) == 1
            assert asyncio.run(again.worker.drain()) == 0
        finally:
            again.close()
            butler.close()
            butler.memory.store.close()
        assert site.line.inbox.status(sent["webhookEventId"])[0] == "done"  # type: ignore[index]
        answers = site.fake.answers_to(WIFE)
        assert [a.texts() for a in answers] == [["牛乳、入れておきます。"]] and answers[0].kind == "push"
        [conversation] = site.backend.butler.conversations.recent("futari", "wife", "line")
        rows = site.backend.butler.conversations.rows(conversation["id"])
        assert [r["role"] for r in rows] == ["user", "assistant"]  # the words stored once, one answer


def test_the_inbox_answers_one_senders_events_in_order_and_takes_back_a_dead_workers_event(
    target: str,
) -> None:
    from shitsuji.line import Inbox

    from .conftest import Clock
    from .line_support import HUSBAND

    clock = Clock()
    inbox = Inbox(database(target), clock=clock)
    first, second, other = text_event(WIFE, "1"), text_event(WIFE, "2"), text_event(HUSBAND, "3")
    assert inbox.accept([first, second, other]) == 3 and inbox.accept([first]) == 0
    taken = inbox.claim(5)
    assert [p.event_id for p in taken] == [first["webhookEventId"], other["webhookEventId"]]
    assert inbox.claim(5) == []  # her second waits for her first
    clock.advance(minutes=4)  # the worker died: its leases run out
    again = inbox.claim(5)
    assert [p.event_id for p in again] == [first["webhookEventId"], other["webhookEventId"]]
    assert again[0].attempts == 2
    inbox.done(first["webhookEventId"])
    assert [p.event_id for p in inbox.claim(5)] == [second["webhookEventId"]]
    clock.advance(days=8)
    assert inbox.purge() == 1 and inbox.accept([first]) == 1  # long forgotten: a new event to us
    inbox.close()


def test_workers_claiming_at_once_take_every_event_once_and_each_senders_in_order(target: str) -> None:
    """Eight claimers in threads (each its own connection) over 40 events from 5 senders: every event
    is taken by exactly one, and a sender's next event never while its previous one is out."""
    from shitsuji.line import Inbox

    senders = [f"U{i:032d}" for i in range(5)]
    events = [text_event(senders[n % 5], str(n)) for n in range(40)]
    Inbox(database(target)).accept(events)
    order = {e["webhookEventId"]: n for n, e in enumerate(events)}
    taken: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(8, timeout=60)  # a thread that fails breaks it: no hang

    def work(_: int) -> None:
        inbox = Inbox(database(target))
        start.wait()
        idle = 0
        while idle < 20:
            batch = inbox.claim(2)
            idle = 0 if batch else idle + 1
            for pending in batch:
                with lock:
                    sender = pending.event["source"]["userId"]
                    assert all(  # nothing earlier from this sender is still unanswered
                        order[e] < order[pending.event_id]
                        for e in taken
                        if events[order[e]]["source"]["userId"] == sender
                    )
                    taken.append(pending.event_id)
                inbox.done(pending.event_id)
            time.sleep(0.002)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(8)))
    assert sorted(taken) == sorted(order) and len(taken) == len(set(taken)) == 40


def test_a_claim_on_postgresql_passes_over_heads_another_worker_holds_without_waiting(pg_url: str) -> None:
    """SKIP LOCKED: a worker mid-claim (its transaction open, its head locked) holds nobody up."""
    from shitsuji.line import Inbox
    from shitsuji.store import open_database

    from .line_support import HUSBAND

    inbox = Inbox(database(pg_url))
    hers, his = text_event(WIFE, "1"), text_event(HUSBAND, "2")
    inbox.accept([hers, his])
    db = open_database(pg_url)
    with db.write() as tx:  # another worker's claim, still under way
        tx.execute(
            "SELECT event_id FROM line_events WHERE event_id = ? FOR UPDATE", (hers["webhookEventId"],)
        )
        began = time.monotonic()
        [taken] = inbox.claim(5)
        assert taken.event_id == his["webhookEventId"] and time.monotonic() - began < 1.0
    [later] = inbox.claim(5)
    assert later.event_id == hers["webhookEventId"]


def test_a_worker_in_another_process_is_woken_by_the_events_stored_not_by_its_poll(pg_url: str) -> None:
    """PostgreSQL: the webhook's process stores an event (NOTIFY in that transaction); a worker that
    only looks every 30 s answers it at once."""
    from shitsuji.line import Inbox

    with line_site(pg_url, run_worker=False) as site:
        site.link(WIFE, "wife")
        stop = asyncio.Event()
        loop = asyncio.new_event_loop()
        worker = threading.Thread(
            target=loop.run_until_complete, args=(site.line.worker.run(stop, poll_s=30.0),), daemon=True
        )
        worker.start()
        time.sleep(1.0)  # the worker took its first look and now waits
        webhook = Inbox(database(pg_url))  # another process's inbox: it cannot call this worker's wake()
        sent = text_event(WIFE, "こんにちは")
        stored = time.monotonic()
        assert webhook.accept([sent]) == 1
        while (webhook.status(sent["webhookEventId"]) or ("",))[0] != "done":
            assert time.monotonic() - stored < 10, webhook.status(sent["webhookEventId"])
            time.sleep(0.02)
        answered = time.monotonic() - stored
        loop.call_soon_threadsafe(stop.set)
        worker.join(30)
        webhook.close()
    assert answered < 3.0 and site.answers(WIFE) == ["はい"]
