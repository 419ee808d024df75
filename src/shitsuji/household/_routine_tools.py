"""The butler's tool for recurring to-dos (garbage days, a monthly bill): the rule in structured
arguments (weekdays, weeks of the month, a day of the month), stored as data, never parsed from
the title. A write like the others: a card on every channel (not on LINE's allow-list).

Completing one (``complete_todo``) moves it to its next occurrence; the morning digest lists
the day's ones in a section of their own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ..agent import tool
from ..errors import UserInputError
from ._deps import Ctx
from ._recurrence import Recurrence
from ._tools import Day, Private, Title, _household
from ._values import parse_when

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Weeks = Annotated[
    list[Annotated[int, Field(ge=1, le=5)]] | None,
    Field(
        description="Weeks of the month with weekdays, e.g. [2, 4]: the 2nd and 4th (資源ごみ 第2・第4水曜)."
    ),
]
DayOfMonth = Annotated[
    int | None, Field(ge=1, le=31, description="A day of each month (31: the last day); no weekdays then.")
]
ClockTime = Annotated[str | None, Field(max_length=5, description="HH:MM to be reminded at; none: all day.")]


def rule_of(weekdays: list[str] | None, weeks: list[int] | None, day_of_month: int | None) -> Recurrence:
    """The recurrence the arguments name: a day of the month, or weekdays (in some weeks only)."""
    if day_of_month is not None:
        if weekdays or weeks:
            raise UserInputError("give either a day of the month or weekdays, not both")
        return Recurrence.monthly_day(day_of_month)
    if weeks:
        return Recurrence.monthly_weekday(weeks, weekdays or [])
    return Recurrence.weekly(weekdays or [])


def _summary(a: dict[str, Any]) -> str:
    try:
        rule = rule_of(a.get("weekdays"), a.get("weeks"), a.get("day_of_month")).describe("ja")
    except UserInputError as exc:
        rule = str(exc)
    at = f" {a['time']}" if a.get("time") else ""
    return f"{a['title']}（{rule}{at}）をくり返しのToDoに追加{'（自分だけ）' if a.get('private') else ''}"


@tool(effect="write", summary=_summary)
def add_recurring_todo(
    ctx: Ctx,
    title: Title,
    weekdays: list[Weekday] | None = None,
    weeks: Weeks = None,
    day_of_month: DayOfMonth = None,
    time: ClockTime = None,
    start: Annotated[Day | None, Field(description="First day it may fall on; today if omitted.")] = None,
    private: Private = False,
) -> str:
    """Add a to-do that comes back (garbage days: 燃えるゴミ every mon and thu; 資源ごみ weeks [2, 4] on
    wed; a bill on day_of_month 25). Completing it moves it to the next time."""
    store, household = _household(ctx)
    rule = rule_of(list(weekdays or []), weeks, day_of_month)
    first = start or store.today(household).isoformat()
    due = parse_when(f"{first}T{time}", "time") if time else first
    todo = store.add_todo(household, title, due, by=ctx.user, private=private, repeat=rule)
    return f"added recurring to-do {todo.title} ({rule.describe('en')}), next {todo.due} (id {todo.id})"


ROUTINE_TOOLS = (add_recurring_todo,)
