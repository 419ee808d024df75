"""How long the event loop is held: a probe that asks to sleep a few milliseconds and times how late it wakes.

Everything a web process serves — pages, chat streams, live updates, the LINE webhook — runs on
one event loop; anything that blocks it (a database call, an embedding, a busy CPU) delays all of
them at once. The probe's lateness is that delay, measured from inside: ``/metrics`` exports it as
a histogram and ``shitsuji bench web`` reads its samples while chat, LINE events and extraction
run side by side.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

INTERVAL_S = 0.01
KEEP = 200_000  # samples kept for a reader (about half an hour at 10 ms); older ones are dropped


class LoopLag:
    """Samples of the loop's lateness in seconds, one per ``interval_s``, while started."""

    def __init__(
        self, interval_s: float = INTERVAL_S, observe: Callable[[float], None] | None = None
    ) -> None:
        self.interval_s = interval_s
        self.observe = observe
        self._samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start probing on the running loop (again a no-op while it runs)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._probe(), name="loop-lag probe")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def take(self) -> list[float]:
        """The samples since the last ``take`` (seconds late), and forget them."""
        taken, self._samples = self._samples, []
        return taken

    async def _probe(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            late = max(0.0, time.perf_counter() - asked - self.interval_s)
            if len(self._samples) < KEEP:
                self._samples.append(late)
            if self.observe is not None:
                self.observe(late)
