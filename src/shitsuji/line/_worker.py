"""The LINE worker: takes stored webhook events from the inbox, answers them, and sends the answer.

It runs inside ``shitsuji serve`` by default (woken by the webhook as soon as an event is
stored) or alone as ``shitsuji worker``; several may run over one database. Its loop never waits on
the database: every inbox, link and turn statement runs in a worker thread (``off_loop``), so one
event's statements never hold up the others' answers (nor, where the worker shares the web app's
loop, a page). Over PostgreSQL
a worker is also woken by the notification any process's webhook sends with new events, so
a worker in another process answers at once instead of at its next look (``poll_s``). Each event is
claimed with a lease, answered by ``LineChannel``, its answer stored, then sent: with the
reply token while the token is fresh (LINE accepts it for about a minute), otherwise — and
for every batch after the first five messages — as a push whose retry key is derived from
the event id, so a push repeated after a crash reaches the person once. A busy
conversation, a rate limit or an unreachable API puts the event back with backoff; a
worker killed mid-turn leaves an event that another worker takes again when its lease
runs out (the conversation service stores the words once, by the event's key).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from .._offload import off_loop
from ..agent import Busy
from ..errors import ModelError, StoreLockedError
from ._channel import LineChannel
from ._inbox import Inbox, Pending
from ._messenger import MAX_MESSAGES, LineApiError, LineRateLimited, LineUnavailable, Messenger
from ._settings import LineSettings

__all__ = ["REPLY_WINDOW", "LineWorker", "chat_of", "retry_key"]

log = logging.getLogger(__name__)

CHORES_EVERY_S = 20.0
REPLY_WINDOW = timedelta(seconds=50)  # a reply token older than this is not tried
_KEYS = uuid.UUID("5a3c6f0e-6c1b-4f43-9d2e-8f1b2b7e1d10")


def chat_of(event: dict[str, Any]) -> str:
    """Where an answer to ``event`` goes: the group or room it came from, else the user."""
    source = event.get("source") or {}
    return str(source.get("groupId") or source.get("roomId") or source.get("userId") or "")


def _call_soon(loop: asyncio.AbstractEventLoop, wake: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # the loop has closed: the worker is gone
        loop.call_soon_threadsafe(wake)


def retry_key(event_id: str, batch: int) -> str:
    """The push's ``X-Line-Retry-Key``: the same for every attempt at the same batch of the same event."""
    return str(uuid.uuid5(_KEYS, f"{event_id}:{batch}"))


class LineWorker:
    def __init__(
        self,
        channel: LineChannel,
        inbox: Inbox,
        settings: LineSettings,
        *,
        concurrency: int = 4,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        reply_window: timedelta = REPLY_WINDOW,
    ) -> None:
        self.channel = channel
        self.inbox = inbox
        self.settings = settings
        self.concurrency = concurrency
        self.clock = clock
        self.reply_window = reply_window
        self._wake: asyncio.Event | None = None

    def wake(self) -> None:
        """Look at the inbox now (the webhook calls this after storing events)."""
        if self._wake is not None:
            self._wake.set()

    async def run(self, stop: asyncio.Event, *, poll_s: float = 1.0, extraction: bool = False) -> None:
        """Answer events until ``stop`` is set; every ``CHORES_EVERY_S`` forget old events and (with
        ``extraction``) run due memory extraction jobs."""
        self._wake = asyncio.Event()
        running: set[asyncio.Task[None]] = set()
        next_chores = 0.0
        loop = asyncio.get_running_loop()
        heard = await off_loop(
            self.inbox.listen, lambda: _call_soon(loop, self.wake)
        )  # other processes' webhooks
        async with Messenger(self.settings) as messenger:
            try:
                while not stop.is_set():
                    self._wake.clear()
                    for pending in await off_loop(self.inbox.claim, self.concurrency - len(running)):
                        task = asyncio.create_task(self._one(messenger, pending))
                        running.add(task)
                        task.add_done_callback(running.discard)
                        task.add_done_callback(lambda _: self.wake())
                    if loop.time() >= next_chores:
                        next_chores = loop.time() + CHORES_EVERY_S
                        await off_loop(self.inbox.purge)
                        if extraction:
                            await self._extract()
                    waits = [asyncio.ensure_future(self._wake.wait()), asyncio.ensure_future(stop.wait())]
                    await asyncio.wait(waits, timeout=poll_s, return_when=asyncio.FIRST_COMPLETED)
                    for waiter in waits:
                        waiter.cancel()
            finally:
                if heard is not None:
                    await asyncio.to_thread(heard.stop)
                if running:  # let answers under way finish; their events are leased, not lost, if cut
                    await asyncio.wait(running, timeout=30)
                for task in running:
                    task.cancel()

    async def drain(self) -> int:
        """Answer every due event now, one claim round after another; how many were handled."""
        handled = 0
        async with Messenger(self.settings) as messenger:
            while batch := await off_loop(self.inbox.claim, self.concurrency):
                await asyncio.gather(*(self._one(messenger, p) for p in batch))
                handled += len(batch)
        return handled

    async def _extract(self) -> None:
        try:
            await self.channel.service.catch_up()
        except Exception:  # a broken model must not stop the worker
            log.exception("memory extraction failed; retrying later")

    async def _one(self, messenger: Messenger, pending: Pending) -> None:
        event_id, attempts = pending.event_id, pending.attempts
        try:
            messages = pending.answer
            if messages is None:
                messages = await self.channel.handle(pending.event, key=event_id, loading=messenger.loading)
                await off_loop(self.inbox.keep_answer, event_id, messages)
            await self._send(messenger, pending, messages)
            await off_loop(self.inbox.done, event_id)
        except LineRateLimited as exc:
            after = timedelta(seconds=max(1.0, exc.retry_after))
            await off_loop(self.inbox.retry, event_id, attempts, str(exc), after=after)
        except (Busy, LineUnavailable, ModelError, StoreLockedError) as exc:
            log.info("LINE event %s: %s; trying again later", event_id, exc)
            await off_loop(self.inbox.retry, event_id, attempts, f"{type(exc).__name__}: {exc}")
        except LineApiError as exc:
            if exc.status in (401, 403):  # a wrong token: the operator can fix it, so keep the event
                log.error("%s", exc)
                await off_loop(self.inbox.retry, event_id, attempts, str(exc))
            else:
                log.warning("LINE refused the answer to %s: %s", event_id, exc)
                await off_loop(self.inbox.fail, event_id, str(exc))
        except Exception as exc:  # one bad event must not stop the worker; keep the trace in the log
            log.exception("LINE event %s crashed", event_id)
            await off_loop(self.inbox.fail, event_id, f"{type(exc).__name__}: {exc}")

    async def _send(self, messenger: Messenger, pending: Pending, messages: list[dict[str, Any]]) -> None:
        batches = [messages[i : i + MAX_MESSAGES] for i in range(0, len(messages), MAX_MESSAGES)]
        token = pending.event.get("replyToken")
        for n in range(pending.sent, len(batches)):
            replied = False
            if n == 0 and isinstance(token, str) and self._fresh(pending.event):
                replied = await messenger.reply(token, batches[n])
            if not replied:
                await messenger.push(chat_of(pending.event), batches[n], retry_key(pending.event_id, n))
            await off_loop(self.inbox.sent, pending.event_id, n + 1)

    def _fresh(self, event: dict[str, Any]) -> bool:
        stamp = event.get("timestamp")
        if not isinstance(stamp, int | float):
            return False
        age = self.clock() - datetime.fromtimestamp(stamp / 1000, UTC)
        return age < self.reply_window
