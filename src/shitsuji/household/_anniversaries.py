"""Anniversaries: dates that come back every year (birthdays, the wedding day, the first date).

A row keeps the day it began (``2020-06-01``: the year counts the years, "6周年"), and each
year's occurrence is computed, never stored: ``next_occurrence`` is the one rule (a 29 February
is kept on 28 February in common years). ``AnniversaryStore.upcoming`` answers "次の記念日は？"
and "how many days until …" for the count index, the tools, the panel — and the scheduler,
which calls it for each member to find what is due within its lead time.

Privacy follows the memory scopes: a row is written with its owner (household, member) and
a scope, the household's (``household/<name>``, shared) or the member's own
(``household/<name>/user/<member>``, private). Every read, change and removal names the
viewer and matches ``scope IN (shared, viewer's own)``, so the spouse's private birthday
surprise is "not found" to the other member exactly as another household's row is.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from .. import store as db
from ..errors import NotFoundError, UserInputError
from ._changing import DomainStore, changing
from ._records import Household
from ._values import check_note, check_text, parse_day

_COLUMNS = "id, title, day, note, added_by, created_at, scope"


@dataclass(frozen=True, slots=True)
class Anniversary:
    id: str
    title: str
    day: str  # the day it began, YYYY-MM-DD
    note: str | None
    added_by: str
    created_at: str
    scope: str

    @property
    def private(self) -> bool:
        """Only its owner sees it (the scope is the member's own)."""
        return "/user/" in self.scope

    def to_json(self) -> dict[str, Any]:
        row = {k: v for k, v in asdict(self).items() if v is not None and k != "scope"}
        row["private"] = self.private
        return row


@dataclass(frozen=True, slots=True)
class Upcoming:
    """An anniversary's next occurrence: the day, how many days until it, and which year it is."""

    anniversary: Anniversary
    on: date
    days: int  # 0: today
    years: int  # 6 on the sixth anniversary; 0 in the year it began

    def to_json(self) -> dict[str, Any]:
        return {
            **self.anniversary.to_json(),
            "next": self.on.isoformat(),
            "days": self.days,
            "years": self.years,
        }


def next_occurrence(began: date | str, today: date) -> date:
    """The first day on or after ``today`` on which ``began`` comes round (29 Feb → 28 Feb in common years)."""
    start = date.fromisoformat(began) if isinstance(began, str) else began
    for year in (today.year, today.year + 1):
        try:
            day = start.replace(year=year)
        except ValueError:  # 29 February in a common year
            day = date(year, 2, 28)
        if day >= today:
            return day
    raise AssertionError("unreachable: next year's occurrence is after today")


def days_until(began: date | str, today: date) -> int:
    """Days from ``today`` to the next occurrence of ``began`` (0: today)."""
    return (next_occurrence(began, today) - today).days


def visible_scopes(household: str, viewer: str) -> tuple[str, str]:
    """The scopes ``viewer`` sees: the household's shared one and their own."""
    home = Household(household, (viewer,), "")
    return home.scope, home.member_scope(viewer)


class AnniversaryStore(DomainStore):
    """A household's anniversaries."""

    def add(
        self,
        household: str,
        title: str,
        day: date | str,
        note: str | None = None,
        *,
        by: str,
        private: bool = False,
    ) -> Anniversary:
        """A new anniversary owned by member ``by``: shared, or only theirs when ``private``."""
        title, began, note = check_text(title, "title"), parse_day(day, "day"), check_note(note)
        shared, own = visible_scopes(household, by)
        row = Anniversary(
            "a_" + secrets.token_hex(4), title, began, note, by, self._now(), own if private else shared
        )
        with changing(self.db, household) as tx:
            self._check_member(tx, household, by)
            tx.execute(
                f"INSERT INTO anniversaries (household, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (household, *asdict(row).values()),
            )
        return row

    def visible(self, household: str, viewer: str) -> list[Anniversary]:
        """What ``viewer`` may see, in calendar order (month and day), then by title."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM anniversaries WHERE household = ? AND scope IN (?, ?) "
            "ORDER BY substr(day, 6), title, id",
            (household, *visible_scopes(household, viewer)),
        ).fetchall()
        return [Anniversary(*r) for r in rows]

    def upcoming(
        self, household: str, viewer: str, today: date, *, within_days: int | None = None
    ) -> list[Upcoming]:
        """What ``viewer`` sees, soonest first from ``today`` (inclusive), optionally only the next
        ``within_days`` days. The scheduler asks this for each member with its lead time."""
        return upcoming_of(self.visible(household, viewer), today, within_days=within_days)

    def get(self, household: str, row_id: str, viewer: str) -> Anniversary:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM anniversaries WHERE household = ? AND id = ? AND scope IN (?, ?)",
            (household, row_id, *visible_scopes(household, viewer)),
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"no anniversary with id {row_id!r} in this household: list them to see the ids"
            )
        return Anniversary(*row)

    def edit(
        self,
        household: str,
        row_id: str,
        viewer: str,
        *,
        title: str | None = None,
        day: date | str | None = None,
        note: str | None = None,
        private: bool | None = None,
    ) -> Anniversary:
        """Change what is given; only the owner may make a shared one private or the reverse."""
        old = self.get(household, row_id, viewer)
        shared, own = visible_scopes(household, old.added_by)
        if private is not None and private != old.private and old.added_by != viewer:
            raise UserInputError(f"only {old.added_by} can change who sees {old.title!r}")
        new = Anniversary(
            old.id,
            check_text(title, "title") if title is not None else old.title,
            parse_day(day, "day") if day is not None else old.day,
            check_note(note) if note is not None else old.note,
            old.added_by,
            old.created_at,
            old.scope if private is None else (own if private else shared),
        )
        with changing(self.db, household) as tx:
            tx.execute(
                "UPDATE anniversaries SET title = ?, day = ?, note = ?, scope = ? WHERE household = ? AND id = ?",
                (new.title, new.day, new.note, new.scope, household, row_id),
            )
        return new

    def remove(self, household: str, row_id: str, viewer: str) -> Anniversary:
        """Delete one anniversary ``viewer`` can see, or raise ``NotFoundError``."""
        old = self.get(household, row_id, viewer)
        with changing(self.db, household) as tx:
            tx.execute("DELETE FROM anniversaries WHERE household = ? AND id = ?", (household, row_id))
        return old

    # -- helpers ----------------------------------------------------------

    def _now(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    @staticmethod
    def _check_member(tx: db.Tx, household: str, user: str) -> None:
        found = tx.execute(
            'SELECT 1 FROM household_members WHERE household = ? AND "user" = ?', (household, user)
        ).fetchone()
        if found is None:
            raise NotFoundError(f"{user!r} is not a member of household {household!r}")


COLUMNS = _COLUMNS  # what a row is read as (``Anniversary(*row)``), for a read joined to another


def upcoming_of(
    rows: Iterable[Anniversary], today: date, *, within_days: int | None = None
) -> list[Upcoming]:
    """``rows`` soonest first from ``today`` (inclusive), optionally only the next ``within_days`` days."""
    found = []
    for row in rows:
        on = next_occurrence(row.day, today)
        days = (on - today).days
        if within_days is None or days <= within_days:
            found.append(Upcoming(row, on, days, on.year - int(row.day[:4])))
    return sorted(found, key=lambda u: (u.days, u.anniversary.title))


def next_line(coming: Sequence[Upcoming], *, lang: str = "ja") -> str:
    """The count index's part: how many, and the next one (「記念日 3件・次は 6/1 結婚記念日（あと12日）」);
    "" without any."""
    if not coming:
        return ""
    first = coming[0]
    when = f"{first.on.month}/{first.on.day}"
    title = first.anniversary.title
    if lang == "en":
        left = "today" if first.days == 0 else f"in {first.days} days"
        return f"anniversaries {len(coming)}, next {when} {title} ({left})"
    left = "今日" if first.days == 0 else f"あと{first.days}日"
    return f"記念日 {len(coming)}件・次は {when} {title}（{left}）"
