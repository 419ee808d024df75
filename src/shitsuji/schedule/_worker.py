"""The scheduler worker: plans what became due, claims it, pushes it to LINE, records the outcome.

``Scheduler.tick`` is one round (plan, then claim-and-push until nothing due is left);
``run`` repeats it until stopped — inside ``shitsuji serve``'s worker process, or alone as
``shitsuji remind run``. The database calls run in a thread (the event loop never waits on the
database); pushes go out concurrently through the LINE SDK. Every decision is in the rows, so a
worker can stop, crash or run beside others at any moment: see ``_plan`` and ``_claims``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from ..errors import StoreLockedError
from ..line import LineApiError, LineRateLimited, LineSettings, LineUnavailable, Messenger, retry_key
from ..store import Database
from ._claims import Budget, Claimed, claim, settle
from ._clock import Clock, SystemClock
from ._plan import plan
from ._sources import SOURCES, Source

__all__ = ["Scheduler", "Tick"]

log = logging.getLogger(__name__)

BATCH = 500  # rows claimed at once
BACKOFF = timedelta(minutes=1)


@dataclass
class Tick:
    """What one round did."""

    planned: int = 0
    pushed: int = 0
    retried: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


class Scheduler:
    def __init__(
        self,
        db: Database,
        line: LineSettings | None,
        *,
        clock: Clock | None = None,
        budget: Budget | None = None,
        sources: Sequence[Source] = SOURCES,
        concurrency: int = 32,
    ) -> None:
        self.db = db
        self.line = line
        self.clock = clock or SystemClock()
        self.budget = budget or Budget()
        self.sources = tuple(sources)
        self.concurrency = concurrency

    async def tick(self) -> Tick:
        result = Tick()
        try:
            result.planned = await asyncio.to_thread(
                plan, self.db, self.clock.now(), self.sources, push=self.line is not None
            )
        except StoreLockedError as exc:  # another process holds the file: plan next round
            result.errors.append(str(exc))
        if self.line is None:
            return result
        async with Messenger(self.line) as messenger:
            while batch := await asyncio.to_thread(claim, self.db, self.clock.now(), self.budget, BATCH):
                await self._push(messenger, batch, result)
                if len(batch) < BATCH:
                    break
        return result

    async def run(self, stop: asyncio.Event, *, poll_s: float = 10.0) -> None:
        """Tick every ``poll_s`` seconds until ``stop`` is set (a failing round is logged, not fatal)."""
        while not stop.is_set():
            try:
                done = await self.tick()
                if done.planned or done.pushed:
                    log.info("scheduler: planned %d, pushed %d", done.planned, done.pushed)
            except Exception:
                log.exception("scheduler round failed; trying again")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll_s)

    async def _push(self, messenger: Messenger, batch: list[Claimed], result: Tick) -> None:
        gate = asyncio.Semaphore(self.concurrency)
        sent: list[int] = []
        retry: list[tuple[int, timedelta, str]] = []
        failed: list[tuple[int, str]] = []

        async def one(row: Claimed) -> None:
            async with gate:
                try:
                    # the retry key is the delivery's own: a repeat after a crash is accepted once
                    await messenger.push(
                        row.line_user, [{"type": "text", "text": row.text}], retry_key(row.dkey, 0)
                    )
                    sent.append(row.id)
                except LineRateLimited as exc:
                    retry.append((row.id, timedelta(seconds=max(1.0, exc.retry_after)), str(exc)))
                except LineUnavailable as exc:
                    retry.append((row.id, BACKOFF, str(exc)))
                except LineApiError as exc:
                    if exc.status in (401, 403):  # the operator can fix the token: keep it
                        retry.append((row.id, BACKOFF, str(exc)))
                    else:
                        failed.append((row.id, str(exc)))

        await asyncio.gather(*(one(row) for row in batch))
        await asyncio.to_thread(settle, self.db, self.clock.now(), sent=sent, retry=retry, failed=failed)
        result.pushed += len(sent)
        result.retried += len(retry)
        result.failed += len(failed)
        for _, error in failed:
            log.warning("LINE refused a reminder: %s", error)
