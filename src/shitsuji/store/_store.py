"""A store over the process's one ``Database``: the storage contract's opening lines, written once.

Every store takes the ``Database`` the edge opened (never a path), ensures its package's schema on
the way in, and has nothing of its own to close: the connection is the process's, closed by its
edge (``store.close_databases``). A store names its ``SCHEMA`` and subclasses ``Store``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import ClassVar

from ._api import Database
from ._migrations import Schema


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    SCHEMA: ClassVar[Schema]

    def __init__(self, database: Database, *, clock: Callable[[], datetime] = _now) -> None:
        database.ensure(self.SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    @property
    def database(self) -> Database:
        """The process's database this store's tables live in (a trip's ``one_connection``)."""
        return self._conn

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""
