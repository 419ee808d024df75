"""What every household domain store shares: the one database, the clock, and a write to a household's
data with the live-update note that goes with it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

from .. import store as db
from ..store._listen import notify
from ._store import HOUSEHOLD_CHANNEL, _utcnow


@contextmanager
def changing(database: db.Database, household: str) -> Iterator[db.Tx]:
    """A write transaction; on PostgreSQL the listening web apps hear of ``household`` on commit
    (never for a rolled-back change), as with ``HouseholdStore``'s own writes."""
    with database.write() as tx:
        yield tx
        notify(database, tx, HOUSEHOLD_CHANNEL, household)


class DomainStore:
    """A household domain's rows in the household tables of ``database`` (already migrated: the
    ``HouseholdStore`` that owns the database ran the household schema)."""

    def __init__(self, database: db.Database, *, clock: Callable[[], datetime] = _utcnow) -> None:
        self.db = database
        self.clock = clock
