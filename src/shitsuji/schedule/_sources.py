"""Where reminders come from: a ``Source`` names the dated things of one kind (events, to-dos …)
whose household-local time falls in a window, in the households of one time zone.

This is the extension point. The planner knows nothing of events or to-dos: it asks each source
in ``SOURCES`` for occurrences and decides who hears of them, when and how. A new kind plugs in
with a class of one method. ``AnniversarySource`` is one: each anniversary's next day (the
household's ``next_occurrence`` rule) as an all-day occurrence, listed by the digest on the day
and ``ahead_days`` before, and reminded ``anniversary_days`` before at the member's digest time
(an ``all_day`` source: the minute-lead reminders do not ask it).

Times are household-local wall-clock text, as the household tables keep them: ``2026-12-03``
(all day) or ``2026-12-03T10:00``; windows are ``(after, until]`` in the same text. ``owner`` is
the visibility rule: None for the household's shared things (every member who opted in hears of
them), a member's id for their private things (only that member does).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Protocol

from ..household import Recurrence, next_occurrence
from ..privacy import member_of_scope
from ..store import Database, Tx

__all__ = [
    "SOURCES",
    "AnniversarySource",
    "EventSource",
    "Occurrence",
    "RecurringSource",
    "Source",
    "TodoSource",
]

Reader = Database | Tx


@dataclass(frozen=True, slots=True)
class Occurrence:
    household: str
    source: str  # the source's name: event, todo …
    ref: str  # the row's id
    title: str
    at: str  # household-local: a date (all day) or a date and time
    owner: str | None = None  # None: shared with the household; else the only member who sees it

    @property
    def timed(self) -> bool:
        return len(self.at) > 10


class Source(Protocol):
    """Dated things of one kind. ``ahead_days``: how many days ahead the digest lists them too; a source
    may also say ``carries_over = True`` (to-dos): the digest then lists its past ones too, until done;
    ``all_day = True`` (anniversaries): reminded days ahead (``anniversary_days``), never minutes ahead;
    ``section = "routine"`` (recurring to-dos): listed by the digest in a section of their own."""

    name: str
    ahead_days: int

    def occurrences(
        self,
        db: Reader,
        zone: str,
        after: str,
        until: str,
        *,
        created_after: str | None = None,
        household: str | None = None,
    ) -> list[Occurrence]:
        """Occurrences with ``after < at <= until`` in households whose ``time_zone`` is ``zone`` ('' when
        unset); only rows created after ``created_after`` (UTC ISO) if given; of one ``household`` if given."""
        ...


class _Rows:
    """What every source shares: the households of one zone (and of one, or rows created since)."""

    name = ""
    ahead_days = 0

    def occurrences(
        self,
        db: Reader,
        zone: str,
        after: str,
        until: str,
        *,
        created_after: str | None = None,
        household: str | None = None,
    ) -> list[Occurrence]:
        sql, params = "COALESCE(h.time_zone, '') = ?", [zone]
        if created_after is not None:
            sql += " AND x.created_at > ?"
            params.append(created_after)
        if household is not None:
            sql += " AND x.household = ?"
            params.append(household)
        return self._found(db, after, until, sql, params)

    def _found(self, db: Reader, after: str, until: str, sql: str, params: list[str]) -> list[Occurrence]:
        raise NotImplementedError


class _TableSource(_Rows):
    """A source that is one household table with a local-time column (its rows' ``title``, ``id`` and
    ``scope``: a member's own scope makes the row theirs alone)."""

    table = ""
    column = ""
    condition = ""  # more SQL the rows must meet

    def _found(self, db: Reader, after: str, until: str, sql: str, params: list[str]) -> list[Occurrence]:
        col = f"x.{self.column}"
        rows = db.execute(
            f"SELECT x.household, x.id, x.title, {col}, x.scope FROM {self.table} x "
            f"JOIN households h ON h.name = x.household "
            f"WHERE {sql} AND {col} > ? AND {col} <= ?{self.condition} ORDER BY {col}, x.id",
            [*params, after, until],
        ).fetchall()
        return [Occurrence(r[0], self.name, r[1], r[2], r[3], member_of_scope(r[4] or "")) for r in rows]


class EventSource(_TableSource):
    """The household's calendar events, by their start."""

    name, table, column = "event", "events", "start_at"


class TodoSource(_TableSource):
    """Open to-dos, by their due date or time (done ones are not reminded; they carry over in the digest)."""

    name, table, column = "todo", "todos", "due"
    condition = " AND x.done_at IS NULL AND x.recur IS NULL"
    carries_over = True


class RecurringSource(_Rows):
    """Recurring to-dos (garbage days …): every occurrence of the rule from the row's ``due`` (the next
    one not yet done) on, so today's garbage is listed even when last week's was never ticked. The
    digest gives them a section of their own (``section``); a to-do with a time of day is reminded."""

    name, section = "recurring", "routine"

    def _found(self, db: Reader, after: str, until: str, sql: str, params: list[str]) -> list[Occurrence]:
        rows = db.execute(
            "SELECT x.household, x.id, x.title, x.due, x.scope, x.recur FROM todos x "
            f"JOIN households h ON h.name = x.household WHERE {sql} AND x.done_at IS NULL "
            "AND x.recur IS NOT NULL AND x.due <= ? ORDER BY x.id",
            [*params, until],
        ).fetchall()
        found = []
        last = date.fromisoformat(until[:10])
        for home, ref, title, due, scope, recur in rows:
            rule = Recurrence.loads(recur)
            assert rule is not None
            first = max(date.fromisoformat(due[:10]), date.fromisoformat(after[:10]) if after else last)
            for day in rule.days(first, last):
                at = day.isoformat() + due[10:]
                if after < at <= until:
                    found.append(Occurrence(home, self.name, ref, title, at, member_of_scope(scope or "")))
        return sorted(found, key=lambda o: (o.at, o.ref))


class AnniversarySource(_Rows):
    """Each anniversary's next occurrence as an all-day one; a private anniversary is its owner's only."""

    name, ahead_days, all_day = "anniversary", 7, True

    def _found(self, db: Reader, after: str, until: str, sql: str, params: list[str]) -> list[Occurrence]:
        first = date.fromisoformat((after or until)[:10])
        days = _month_days(first, date.fromisoformat(until[:10]))
        if days is not None:  # a short window (the usual): only the rows whose month and day fall in it
            sql += f" AND substr(x.day, 6) IN ({','.join('?' * len(days))})"
            params = [*params, *days]
        rows = db.execute(
            "SELECT x.household, x.id, x.title, x.day, x.scope FROM anniversaries x "
            f"JOIN households h ON h.name = x.household WHERE {sql} ORDER BY x.id",
            params,
        ).fetchall()
        found = []
        for home, ref, title, began, scope in rows:
            on = next_occurrence(began, first)
            while on.isoformat() <= until:
                if on.isoformat() > after:
                    found.append(
                        Occurrence(home, self.name, ref, title, on.isoformat(), member_of_scope(scope))
                    )
                on = next_occurrence(began, on + timedelta(days=1))
        return sorted(found, key=lambda o: (o.at, o.ref))


def _month_days(first: date, last: date) -> list[str] | None:
    """The ``MM-DD`` of every day from ``first`` to ``last`` (None past a month: no filter); a 29
    February's anniversary falls on 28 February in a common year, so that day names both."""
    if (last - first).days > 31:
        return None
    out, day = [], first
    while day <= last:
        out.append(day.strftime("%m-%d"))
        if day.month == 2 and day.day == 28 and (day + timedelta(days=1)).month == 3:
            out.append("02-29")
        day += timedelta(days=1)
    return out


SOURCES: tuple[Source, ...] = (EventSource(), TodoSource(), RecurringSource(), AnniversarySource())
