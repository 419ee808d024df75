"""Live updates: a change counter per household that open event streams wait on.

The web app bumps a household's counter itself after a change it made. A change made by
another process — the LINE worker, the command line, another app process behind the same
port — reaches the streams in one of two ways, chosen by the database:

- SQLite: a stream re-reads the household's fingerprint every ``POLL_S`` (2 s) anyway.
- PostgreSQL: every household write NOTIFYs ``shitsuji_household`` with the household's name,
  in the write's own transaction (so it is heard only once the change is committed). The hub
  LISTENs on one connection of its own, in a thread, and bumps that household's counter the
  moment a notification arrives; streams then re-read when woken, and every ``LISTEN_POLL_S``
  (5 s) as a keep-alive and a safety net should the listening connection drop. Whenever the listening connection is (re)opened, every
  household is woken once: nothing said while nobody listened is missed.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from ..household import HOUSEHOLD_CHANNEL
from ..store._listen import Listener, listener

POLL_S = 2.0  # SQLite: how often a stream re-reads the fingerprint
LISTEN_POLL_S = 5.0  # PostgreSQL: notifications wake the streams; this is the keep-alive and safety net


@dataclass
class Hub:
    """Change counters per household; streams wait on them for live panel updates.

    Announcing never waits on a listener: no lock is shared between them. Each waiting stream
    parks a future of its own under its household; ``announce`` bumps the counter and resolves
    the household's futures, all in one step on the loop. A stream whose client leaves is
    cancelled while it waits on its own future, which only ever takes that future away (an
    ``asyncio.Condition`` under ``wait_for`` could orphan the shared lock there and hang every
    later announcement).
    """

    versions: dict[str, int] = field(default_factory=dict)
    poll_s: float = POLL_S
    _waiting: dict[str, set[asyncio.Future[None]]] = field(default_factory=dict)
    _listener: Listener | None = None

    def announce(self, household: str | None) -> None:
        """Bump ``household``'s counter (None: every household's) and wake its streams. Runs on the loop,
        never blocks and never awaits."""
        names = [household] if household is not None else list({*self.versions, *self._waiting})
        for name in names:
            self.versions[name] = self.versions.get(name, 0) + 1
            for waiter in self._waiting.pop(name, ()):
                if not waiter.done():
                    waiter.set_result(None)

    async def bump(self, household: str | None) -> None:
        """Wake the streams of ``household`` (None: of every household)."""
        self.announce(household)

    async def wait(self, household: str, seen: int, timeout: float) -> int:
        """Until ``household``'s counter is no longer ``seen`` or ``timeout`` passes: the counter then."""
        if self.versions.get(household, 0) != seen:
            return self.versions.get(household, 0)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        parked = self._waiting.setdefault(household, set())
        parked.add(waiter)
        try:
            await asyncio.wait([waiter], timeout=timeout)  # a timeout leaves the future alone
        finally:
            parked.discard(waiter)
            if not parked and self._waiting.get(household) is parked:
                del self._waiting[household]
        return self.versions.get(household, 0)

    async def listen(self, database: str | Path) -> None:
        """Hear other processes' changes (PostgreSQL; SQLite keeps polling). Call on the app's loop;
        returns once the listening connection is open."""
        if self._listener is not None:
            return
        loop = asyncio.get_running_loop()

        def heard(household: str | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing: nobody is waiting any more
                loop.call_soon_threadsafe(self.announce, household)

        self._listener = listener(str(database), HOUSEHOLD_CHANNEL, heard)
        if self._listener is not None and await asyncio.to_thread(self._listener.ready.wait, 10):
            self.poll_s = LISTEN_POLL_S

    async def stop(self) -> None:
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop listening (the app's shutdown, or its backend closing)."""
        if self._listener is not None:
            running, self._listener = self._listener, None
            running.stop()
            self.poll_s = POLL_S
