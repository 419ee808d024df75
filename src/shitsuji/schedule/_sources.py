"""Where reminders come from: a ``Source`` names the dated things of one kind (events, to-dos …)
whose household-local time falls in a window, in the households of one time zone.

This is the extension point. The planner knows nothing of events or to-dos: it asks each source
in ``SOURCES`` for occurrences and decides who hears of them, when and how. A new kind plugs in
with a class of one method — anniversaries, say, return the next occurrence of each date as an
all-day occurrence (``at`` a date), which the digest lists on the day and ``ahead_days`` before::

    class AnniversarySource:
        name, ahead_days = "anniversary", 7
        def occurrences(self, db, zone, after, until, *, created_after=None, household=None):
            return [Occurrence(h, "anniversary", a.id, a.title, a.next_day, a.owner)
                    for h, a in next_anniversaries(db, zone, after, until, household)]

and ``Scheduler(..., sources=(*SOURCES, AnniversarySource()))``.

Times are household-local wall-clock text, as the household tables keep them: ``2026-12-03``
(all day) or ``2026-12-03T10:00``; windows are ``(after, until]`` in the same text. ``owner`` is
the visibility rule: None for the household's shared things (every member who opted in hears of
them), a member's id for their private things (only that member does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..store import Database, Tx

__all__ = ["SOURCES", "EventSource", "Occurrence", "Source", "TodoSource"]

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
    may also say ``carries_over = True`` (to-dos): the digest then lists its past ones too, until done."""

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


class _TableSource:
    """A source that is one household table with a local-time column (its rows' ``title`` and ``id``)."""

    name = ""
    ahead_days = 0
    table = ""
    column = ""
    condition = ""  # more SQL the rows must meet
    owner = "NULL"  # SQL for the row's private owner (NULL: shared) once the table has such a column

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
        col = f"x.{self.column}"
        sql = f"COALESCE(h.time_zone, '') = ? AND {col} > ? AND {col} <= ?{self.condition}"
        params = [zone, after, until]
        if created_after is not None:
            sql += " AND x.created_at > ?"
            params.append(created_after)
        if household is not None:
            sql += " AND x.household = ?"
            params.append(household)
        rows = db.execute(
            f"SELECT x.household, x.id, x.title, {col}, {self.owner} FROM {self.table} x "
            f"JOIN households h ON h.name = x.household WHERE {sql} ORDER BY {col}, x.id",
            params,
        ).fetchall()
        return [Occurrence(r[0], self.name, r[1], r[2], r[3], r[4]) for r in rows]


class EventSource(_TableSource):
    """The household's calendar events, by their start."""

    name, table, column = "event", "events", "start_at"


class TodoSource(_TableSource):
    """Open to-dos, by their due date or time (done ones are not reminded; they carry over in the digest)."""

    name, table, column = "todo", "todos", "due"
    condition = " AND x.done_at IS NULL"
    carries_over = True


SOURCES: tuple[Source, ...] = (EventSource(), TodoSource())
