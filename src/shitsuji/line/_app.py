"""The LINE channel over one butler: its stores, its worker and its webhook, wired once.

``shitsuji serve`` mounts ``LineApp.router()`` on the web app and (unless told not to)
runs ``LineApp.worker`` in the same process; ``shitsuji worker`` runs the worker alone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from fastapi import APIRouter

from ..config import LineSettings
from ..household import Butler
from ._channel import LineChannel
from ._inbox import Inbox
from ._links import LineLinks
from ._webhook import webhook_router
from ._worker import LineWorker

__all__ = ["LineApp"]


class LineApp:
    def __init__(
        self,
        butler: Butler,
        settings: LineSettings,
        *,
        run_worker: bool = True,
        concurrency: int = 4,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """``run_worker`` False: the web app only stores events, and ``shitsuji worker`` answers them."""
        self.butler = butler
        self.settings = settings
        self.run_worker = run_worker
        self.links = LineLinks(butler.path, clock=clock)
        self.inbox = Inbox(butler.path, clock=clock)
        self.channel = LineChannel(butler, self.links, settings.channel_secret)
        self.worker = LineWorker(self.channel, self.inbox, settings, concurrency=concurrency, clock=clock)

    def router(self) -> APIRouter:
        return webhook_router(self.inbox, self.settings.channel_secret, stored=self.worker.wake)

    def close(self) -> None:
        self.links.close()
        self.inbox.close()
