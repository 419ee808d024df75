"""Changing an event or an expense the household already has: the given fields, checked as when added.

The add path lives in ``HouseholdStore``; this module is the change path beside it, in the
same tables and with the same checks (``_values``), so a change can never store what an
addition would refuse. The row is read and written in one transaction, matched on
household *and* id (another household's id is "not found"), and the web apps listening
hear of it on commit.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserInputError
from ._records import Event, Expense
from ._store import _EVENT, _EXPENSE, HouseholdStore
from ._values import MAX_CATEGORY, check_note, check_text, check_yen, parse_day, parse_when

_UNSET: Any = object()


def edit_event(
    store: HouseholdStore,
    household: str,
    event_id: str,
    *,
    title: str | None = None,
    start: str | None = None,
    end: str | None = _UNSET,
    note: str | None = _UNSET,
    viewer: str | None = None,
) -> Event:
    """Change an event's title, start, end (None or "": no end) or note (None or "": none); with a
    ``viewer``, only an event they see."""
    with store._changing(household) as tx:
        old = Event.of_row(store._one(tx, _EVENT, "events", household, event_id, "event", viewer))
        new = Event(
            old.id,
            check_text(title, "event title") if title is not None else old.title,
            parse_when(start, "start") if start is not None else old.start,
            old.end if end is _UNSET else (parse_when(end, "end") if end else None),
            old.note if note is _UNSET else check_note(note),
            old.added_by,
            old.created_at,
            old.private,
        )
        if new.end is not None and new.end < new.start:
            raise UserInputError(f"end {new.end} is before start {new.start}: give an end after the start")
        tx.execute(
            "UPDATE events SET title = ?, start_at = ?, end_at = ?, note = ? WHERE household = ? AND id = ?",
            (new.title, new.start, new.end, new.note, household, event_id),
        )
    return new


def edit_expense(
    store: HouseholdStore,
    household: str,
    expense_id: str,
    *,
    amount_yen: int | None = None,
    category: str | None = None,
    note: str | None = _UNSET,
    day: str | None = None,
) -> Expense:
    """Change an expense's amount, category, note (None or "": none) or day."""
    with store._changing(household) as tx:
        old = Expense(*store._one(tx, _EXPENSE, "expenses", household, expense_id, "expense"))
        new = Expense(
            old.id,
            check_yen(amount_yen) if amount_yen is not None else old.amount_yen,
            check_text(category, "category", MAX_CATEGORY) if category is not None else old.category,
            old.note if note is _UNSET else check_note(note),
            parse_day(day, "date") if day is not None else old.date,
            old.added_by,
            old.created_at,
        )
        tx.execute(
            "UPDATE expenses SET amount_yen = ?, category = ?, note = ?, spent_on = ? "
            "WHERE household = ? AND id = ?",
            (new.amount_yen, new.category, new.note, new.date, household, expense_id),
        )
    return new
