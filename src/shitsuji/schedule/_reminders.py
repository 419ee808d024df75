"""One handle on the scheduler's tables for an app (the web app holds one): notifications, settings and
the month's pushes, over the process's one database (the scheduler's schema ensured on it)."""

from __future__ import annotations

from datetime import UTC, datetime

from ..store import Database
from ._claims import Budget, pushes_used
from ._notifications import Notifications
from ._schema import SCHEDULE_SCHEMA
from ._settings import SettingsStore

__all__ = ["Reminders"]


class Reminders:
    """Notifications, settings and the push count of one database."""

    def __init__(self, database: Database, budget: Budget | None = None) -> None:
        database.ensure(SCHEDULE_SCHEMA)
        self.db = database
        self.notifications = Notifications(self.db)
        self.settings = SettingsStore(self.db)
        self.budget = budget or Budget()  # ``serve`` sets the configured one

    def pushes(self) -> tuple[int, int]:
        return pushes_used(self.db, datetime.now(UTC)), self.budget.monthly

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""
