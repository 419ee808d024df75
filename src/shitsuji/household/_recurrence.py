"""Recurring to-dos (garbage days: 燃えるゴミ every Monday and Thursday, 資源ごみ the 2nd and 4th
Wednesday, a bill on the 25th): the rule is data, stored with the to-do as JSON, never text
parsed again when it is read.

A recurring to-do is one row whose ``due`` is its next occurrence not yet done. Completing it
moves ``due`` to the first occurrence after both the old due day and today (a garbage day missed
on Monday and ticked on Tuesday comes back on Thursday), and the row stays open. The scheduler
asks ``Recurrence.days`` for the occurrences in a window, from ``due`` on, so the digest lists
today's garbage even when last week's was never ticked.

Three shapes, each a ``kind``:
- ``weekly``: ``weekdays`` (0 = Monday … 6 = Sunday);
- ``monthly_weekday``: the ``nths`` (1–5) ``weekdays`` of each month ("2nd and 4th Wednesday";
  a month without a 5th one skips it);
- ``monthly_day``: ``day`` of each month (31 → the month's last day).
"""

from __future__ import annotations

import calendar
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from ..errors import UserInputError

__all__ = ["WEEKDAY_NAMES", "Recurrence"]

Kind = Literal["weekly", "monthly_weekday", "monthly_day"]
WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_JA_DAYS = "月火水木金土日"
_EN_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_HORIZON = 400  # days looked ahead for the next occurrence (every rule recurs within a year)


def _weekday(value: str | int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 6:
        return value
    text = str(value).strip().lower()[:3]
    if text in WEEKDAY_NAMES:
        return WEEKDAY_NAMES.index(text)
    if len(str(value).strip()) >= 1 and str(value).strip()[0] in _JA_DAYS:
        return _JA_DAYS.index(str(value).strip()[0])
    raise UserInputError(f"weekday {value!r} is not known: use mon, tue, wed, thu, fri, sat or sun (月〜日)")


@dataclass(frozen=True, slots=True)
class Recurrence:
    kind: Kind
    weekdays: tuple[int, ...] = ()
    nths: tuple[int, ...] = ()
    day: int | None = None

    @classmethod
    def weekly(cls, weekdays: Sequence[str | int]) -> Recurrence:
        days = tuple(sorted({_weekday(d) for d in weekdays}))
        if not days:
            raise UserInputError("a weekly to-do needs at least one weekday, e.g. mon,thu")
        return cls("weekly", days)

    @classmethod
    def monthly_weekday(cls, nths: Sequence[int], weekdays: Sequence[str | int]) -> Recurrence:
        if not nths or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 5 for n in nths):
            raise UserInputError(
                f"which weeks of the month: numbers from 1 to 5 (2,4: the 2nd and 4th), got {nths!r}"
            )
        return cls("monthly_weekday", cls.weekly(weekdays).weekdays, tuple(sorted(set(nths))))

    @classmethod
    def monthly_day(cls, day: int) -> Recurrence:
        if isinstance(day, bool) or not isinstance(day, int) or not 1 <= day <= 31:
            raise UserInputError(f"day of the month must be from 1 to 31 (31: the last day), got {day!r}")
        return cls("monthly_day", day=day)

    # -- stored as data ---------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"kind": self.kind}
        if self.weekdays:
            shown["weekdays"] = [WEEKDAY_NAMES[d] for d in self.weekdays]
        if self.nths:
            shown["nths"] = list(self.nths)
        if self.day is not None:
            shown["day"] = self.day
        return shown

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def loads(cls, text: str | None) -> Recurrence | None:
        if not text:
            return None
        data = json.loads(text)
        kind = data["kind"]
        if kind == "weekly":
            return cls.weekly(data["weekdays"])
        if kind == "monthly_weekday":
            return cls.monthly_weekday(data["nths"], data["weekdays"])
        return cls.monthly_day(int(data["day"]))

    # -- dates ------------------------------------------------------------

    def matches(self, day: date) -> bool:
        if self.kind == "weekly":
            return day.weekday() in self.weekdays
        if self.kind == "monthly_weekday":
            return day.weekday() in self.weekdays and (day.day - 1) // 7 + 1 in self.nths
        assert self.day is not None
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day == min(self.day, last)

    def days(self, first: date, last: date) -> Iterator[date]:
        """The occurrences from ``first`` to ``last``, both included."""
        day = first
        while day <= last:
            if self.matches(day):
                yield day
            day += timedelta(days=1)

    def next_after(self, day: date) -> date:
        """The first occurrence strictly after ``day``."""
        return next(self.days(day + timedelta(days=1), day + timedelta(days=_HORIZON)))

    def first_from(self, day: date) -> date:
        """The first occurrence on or after ``day``."""
        return next(self.days(day, day + timedelta(days=_HORIZON)))

    def describe(self, lang: str) -> str:
        """ "毎週月・木" / "every Mon, Thu"; "毎月第2・第4水" / "2nd, 4th Wed monthly"; "毎月25日" / "25th monthly"."""
        if lang == "ja":
            days = "・".join(_JA_DAYS[d] for d in self.weekdays)
            if self.kind == "weekly":
                return f"毎週{days}"
            if self.kind == "monthly_weekday":
                return f"毎月{'・'.join(f'第{n}' for n in self.nths)}{days}曜"
            return "毎月末日" if self.day == 31 else f"毎月{self.day}日"
        days = ", ".join(_EN_DAYS[d] for d in self.weekdays)
        if self.kind == "weekly":
            return f"every {days}"
        if self.kind == "monthly_weekday":
            return f"{', '.join(_ordinal(n) for n in self.nths)} {days} of each month"
        return "last day of each month" if self.day == 31 else f"{_ordinal(self.day or 1)} of each month"


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"
