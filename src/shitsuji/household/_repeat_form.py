"""The rule a member picks on the to-do panel's add form ("繰り返し": weekly on some days, the nth
weekdays of each month, a day of each month), checked before anything is written.

The form sends the choice and every field it shows (a weekday box ticked before the member
switched to "day of the month" comes along), so only the fields of the chosen kind are read.
Each refusal is a ``Refusal`` with a key of the web's words tables: the member reads why in
their own language (the JSON API says the English too), and nothing is stored. The rule
itself is ``Recurrence``, as the butler's ``add_recurring_todo`` stores it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date
from typing import Literal

from ..errors import Refusal
from ._recurrence import WEEKDAY_NAMES, Recurrence

__all__ = ["REPEAT_KINDS", "RepeatKind", "panel_due", "panel_rule"]

RepeatKind = Literal["weekly", "monthly_weekday", "monthly_day"]
REPEAT_KINDS: tuple[RepeatKind, ...] = ("weekly", "monthly_weekday", "monthly_day")


def _weekdays(values: Sequence[str]) -> list[str]:
    unknown = [v for v in values if v not in WEEKDAY_NAMES]
    if unknown:
        raise Refusal(
            "repeat_bad_weekday",
            f"weekday {unknown[0]!r} is not known: use mon, tue, wed, thu, fri, sat or sun",
            value=unknown[0],
        )
    if not values:
        raise Refusal("repeat_no_weekday", "choose the weekdays it repeats on")
    return list(values)


def _number(value: str | int, low: int, high: int, key: str, english: str) -> int:
    """A whole number from low to high (the form sends text), else refused with ``key``."""
    try:
        number = int(str(value).strip())
    except ValueError:
        number = -1
    if not low <= number <= high:
        raise Refusal(key, english.format(value=value), value=value)
    return number


_CLOCK = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")


def panel_due(due: str | None, time: str | None, today: Callable[[], date]) -> str | None:
    """The due moment the form names: its day (``due``, else today on the household's calendar when
    only a time is given) at ``time`` (the form's ``HH:MM``), or the day alone. A garbage day at 07:30
    is reminded of at 07:30, as the butler's ``add_recurring_todo`` with ``time`` does."""
    clock = (time or "").strip()
    if not clock:
        return due
    match = _CLOCK.fullmatch(clock)
    if match is None:
        raise Refusal(
            "todo_bad_time", f"time {time!r} is not a time of day: use HH:MM, e.g. 07:30", value=time
        )
    day = due[:10] if due else today().isoformat()
    return f"{day}T{int(match[1]):02d}:{match[2]}"


def panel_rule(
    repeat: RepeatKind | None,
    weekdays: Sequence[str] = (),
    weeks: Sequence[str | int] = (),
    day_of_month: str | int | None = None,
) -> Recurrence | None:
    """The recurrence the form names, or None for a to-do done once (no ``repeat``)."""
    if repeat is None:
        return None
    if repeat == "weekly":
        return Recurrence.weekly(_weekdays(weekdays))
    if repeat == "monthly_weekday":
        if not weeks:
            raise Refusal("repeat_no_week", "choose which weeks of the month (1st to 5th)")
        nths = [
            _number(w, 1, 5, "repeat_bad_week", "week of the month must be from 1 to 5, got {value!r}")
            for w in weeks
        ]
        return Recurrence.monthly_weekday(nths, _weekdays(weekdays))
    if day_of_month is None or str(day_of_month).strip() == "":
        raise Refusal("repeat_no_day", "choose the day of the month (31: the last day)")
    day = _number(
        day_of_month,
        1,
        31,
        "repeat_bad_day",
        "day of the month must be from 1 to 31 (31: the last day), got {value!r}",
    )
    return Recurrence.monthly_day(day)
