"""The LINE channel over one butler: its stores, its worker and its webhook, wired once.

``shitsuji serve`` mounts ``LineApp.router()`` on the web app and runs the worker in the
same process (``LineApp.running()``); ``shitsuji worker`` runs a worker alone. Given a
``worker_butler`` factory, the in-process worker gets a thread and an event loop of its
own, over its own butler (its own database connections): a turn's synchronous work then
does not queue the webhook's acks behind it on one event loop (LINE wants them within
seconds; we answer in milliseconds). A lower OS priority for that thread was tried and
dropped: on a busy machine it starves while holding the GIL and stalls the acks instead. Without one, the worker runs as a task on the app's loop (tests, small setups).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

from fastapi import APIRouter

from ..household import Butler, LineLinks
from ..store import database
from ._channel import LineChannel
from ._content import LineContent
from ._inbox import Inbox
from ._schema import inbox_path
from ._settings import LineSettings
from ._webhook import webhook_router
from ._worker import LineWorker

__all__ = ["LineApp"]

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
STOP_WAIT_S = 40.0


def _utcnow() -> datetime:
    return datetime.now(UTC)


class _WorkerThread(threading.Thread):
    """A ``LineWorker`` over its own butler, on its own event loop."""

    def __init__(
        self, make_butler: Callable[[], Butler], settings: LineSettings, concurrency: int, clock: Clock
    ):
        super().__init__(name="shitsuji-line-worker", daemon=True)
        self.make_butler = make_butler
        self.settings = settings
        self.concurrency = concurrency
        self.clock = clock
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._worker: LineWorker | None = None

    def run(self) -> None:
        butler = self.make_butler()
        links, inbox = (
            LineLinks(butler.database, clock=self.clock),
            Inbox(database(inbox_path(butler.path)), clock=self.clock),
        )
        channel = LineChannel(butler, links, self.settings.channel_secret, _content(self.settings))
        self._worker = LineWorker(
            channel, inbox, self.settings, concurrency=self.concurrency, clock=self.clock
        )
        try:
            asyncio.run(self._main())
        finally:
            links.close()
            inbox.close()
            butler.close()

    async def _main(self) -> None:
        assert self._worker is not None
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.ready.set()
        await self._worker.run(self._stop, extraction=True)

    def wake(self) -> None:
        if self._loop is not None and self._worker is not None:
            self._loop.call_soon_threadsafe(self._worker.wake)

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self.join(STOP_WAIT_S)


class LineApp:
    def __init__(
        self,
        butler: Butler,
        settings: LineSettings,
        *,
        run_worker: bool = True,
        worker_butler: Callable[[], Butler] | None = None,
        concurrency: int = 4,
        clock: Clock = _utcnow,
    ) -> None:
        """``run_worker`` False: the web app only stores events, and ``shitsuji worker`` answers them.
        ``worker_butler``: make the in-process worker's own butler and run it in a thread."""
        self.butler = butler
        self.settings = settings
        self.run_worker = run_worker
        self.links = LineLinks(butler.database, clock=clock)
        self.inbox = Inbox(database(inbox_path(butler.path)), clock=clock)
        self.channel = LineChannel(butler, self.links, settings.channel_secret, _content(settings))
        self.worker = LineWorker(self.channel, self.inbox, settings, concurrency=concurrency, clock=clock)
        self._worker_butler = worker_butler
        self._thread: _WorkerThread | None = None
        self._concurrency = concurrency
        self._clock = clock

    def router(self) -> APIRouter:
        return webhook_router(self.inbox, self.settings.channel_secret, stored=self.wake)

    def wake(self) -> None:
        """New events are stored: the worker (here or in its thread) looks now."""
        if self._thread is not None:
            self._thread.wake()
        else:
            self.worker.wake()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The in-process worker while the app runs (nothing when ``run_worker`` is False)."""
        if not self.run_worker:
            yield
            return
        if self._worker_butler is not None:
            self._thread = _WorkerThread(self._worker_butler, self.settings, self._concurrency, self._clock)
            self._thread.start()
            await asyncio.to_thread(self._thread.ready.wait, 30)
            try:
                yield
            finally:
                await asyncio.to_thread(self._thread.stop)
                self._thread = None
            return
        stop = asyncio.Event()
        task = asyncio.create_task(self.worker.run(stop))
        try:
            yield
        finally:
            stop.set()
            try:
                await asyncio.wait_for(task, STOP_WAIT_S)
            except Exception:
                log.exception("the LINE worker did not stop cleanly")

    def close(self) -> None:
        self.links.close()
        self.inbox.close()


def _content(settings: LineSettings) -> LineContent:
    # a fake Messaging API (SHITSUJI_LINE_API_URL) serves the content endpoint too; LINE itself, api-data
    return LineContent(settings.channel_token, settings.api_url)
