"""Shared set-up for the scheduler's tests: a household of two with linked LINE accounts, the fake
Messaging API, a fake clock, and a scheduler over one database (SQLite file or PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from shitsuji.household import HouseholdStore
from shitsuji.line import FakeLineAPI, LineLinks, LineSettings
from shitsuji.schedule import SCHEDULE_SCHEMA, Budget, FakeClock, Scheduler, SettingsStore, Tick
from shitsuji.store import Database, database, open_database

from .line_support import HUSBAND, SECRET, TOKEN, WIFE

LINE_OF = {"wife": WIFE, "husband": HUSBAND}


@dataclass
class Home:
    target: str
    clock: FakeClock
    store: HouseholdStore
    db: Database
    fake: FakeLineAPI
    line: LineSettings

    def scheduler(self, **kwargs: object) -> Scheduler:
        """A scheduler with a database connection of its own (another worker)."""
        return Scheduler(open_database(self.target, SCHEDULE_SCHEMA), self.line, clock=self.clock, **kwargs)  # type: ignore[arg-type]

    def settings(self, member: str, **changes: object) -> None:
        SettingsStore(self.db).update("futari", member, **changes)

    def tick(self, scheduler: Scheduler | None = None) -> Tick:
        return asyncio.run((scheduler or self.scheduler()).tick())

    def run(
        self, until: str, *, step_minutes: float = 1.0, budget: Budget | None = None
    ) -> list[tuple[str, str]]:
        """Tick every ``step_minutes`` until ``until``; what was pushed at which (UTC) time."""
        scheduler = self.scheduler(budget=budget) if budget else self.scheduler()
        seen = len(self.fake.of("push"))
        out: list[tuple[str, str]] = []
        end = FakeClock(until).now()
        while self.clock.now() < end:
            self.clock.advance(minutes=step_minutes)
            self.tick(scheduler)
            pushes = self.fake.of("push")
            out += [(self.clock.now().strftime("%H:%M"), p.texts()[0]) for p in pushes[seen:]]
            seen = len(pushes)
        return out

    def statuses(self) -> dict[str, str]:
        rows = self.db.execute("SELECT dkey, status FROM schedule_deliveries ORDER BY id").fetchall()
        return {r[0]: r[1] for r in rows}


@contextmanager
def household(target: str, *, start: str, zone: str = "Asia/Tokyo") -> Iterator[Home]:
    """A household ``futari`` (wife, husband) in ``zone``, both LINE-linked, the clock at ``start``;
    the scheduler's mark is set at ``start`` (it plans from there)."""
    clock = FakeClock(start)
    store = HouseholdStore(database(target), clock=clock.now)
    store.create("futari", ["wife", "husband"], time_zone=zone)
    links = LineLinks(database(target))
    for member, user in LINE_OF.items():
        assert links.redeem(user, links.new_code("futari", member)) is not None
    links.close()
    db = open_database(target, SCHEDULE_SCHEMA)
    with FakeLineAPI(TOKEN) as fake:
        home = Home(target, clock, store, db, fake, LineSettings(SECRET, TOKEN, fake.url, push_rate=1000.0))
        home.tick()  # sets the planner's mark at the start
        try:
            yield home
        finally:
            db.close()
            store.close()
