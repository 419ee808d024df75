"""The butler's tools to change or remove an event or an expense: each one a card on every channel.

None of them is on any channel's allow-list: a change or a removal is shown to the person
first (the web card names the row its id points to). Only the fields the model gives
change; the rest stay as they are.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..agent import tool
from ._deps import Ctx
from ._edits import edit_event as _edit_event
from ._edits import edit_expense as _edit_expense
from ._tools import Day, Note, RowId, Title, When, _household, _md, _span
from ._values import MAX_CATEGORY, MAX_YEN


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def joined(parts: list[str]) -> str:
    """The changed fields of a card's line, 「件名→歯医者、メモ→保険証」 (「変更なし」 when none)."""
    return "、".join(p for p in parts if p) or "変更なし"


def _event_summary(a: dict[str, Any]) -> str:
    when = f"日時→{_span(a['start'], a.get('end'))}" if a.get("start") else ""
    parts = [
        f"件名→{a['title']}" if a.get("title") else "",
        when or (f"終了→{_md(a['end'])}" if a.get("end") else ""),
        f"メモ→{a['note']}" if a.get("note") else "",
    ]
    return f"予定 {a['id']} を変更：{joined(parts)}"


@tool(effect="write", summary=_event_summary)
def edit_event(
    ctx: Ctx,
    id: RowId,
    title: Title | None = None,
    start: When | None = None,
    end: When | None = None,
    note: Note = None,
) -> str:
    """Change an event's title, time or note (the id comes from list_events); omitted fields stay."""
    store, household = _household(ctx)
    changes = _given(title=title, start=start, end=end, note=note)
    event = _edit_event(store, household, id, viewer=ctx.user, **changes)
    return f"changed event {event.title} at {_span(event.start, event.end)}"


@tool(effect="write", summary=lambda a: f"予定 {a['id']} を削除")
def remove_event(ctx: Ctx, id: RowId) -> str:
    """Remove an event from the household's calendar (the id comes from list_events)."""
    store, household = _household(ctx)
    return f"removed event {store.remove_event(household, id, viewer=ctx.user).title}"


def _expense_summary(a: dict[str, Any]) -> str:
    parts = [
        f"金額→¥{a['amount']:,}" if a.get("amount") else "",
        f"分類→{a['category']}" if a.get("category") else "",
        f"日付→{_md(a['date'])}" if a.get("date") else "",
        f"メモ→{a['note']}" if a.get("note") else "",
    ]
    return f"支出 {a['id']} を変更：{joined(parts)}"


@tool(effect="write", summary=_expense_summary)
def edit_expense(
    ctx: Ctx,
    id: RowId,
    amount: Annotated[int | None, Field(strict=True, gt=0, le=MAX_YEN, description="Whole yen.")] = None,
    category: Annotated[str | None, Field(min_length=1, max_length=MAX_CATEGORY)] = None,
    note: Note = None,
    date: Annotated[Day | None, Field(description="Day spent, ISO 8601.")] = None,
) -> str:
    """Change an expense's amount, category, note or day (the id comes from list_expenses)."""
    store, household = _household(ctx)
    changes = _given(amount_yen=amount, category=category, note=note, day=date)
    expense = _edit_expense(store, household, id, **changes)
    return f"changed expense to ¥{expense.amount_yen:,} {expense.category} on {expense.date}"


@tool(effect="write", summary=lambda a: f"支出 {a['id']} を削除")
def remove_expense(ctx: Ctx, id: RowId) -> str:
    """Remove an expense (the id comes from list_expenses)."""
    store, household = _household(ctx)
    expense = store.remove_expense(household, id)
    return f"removed expense ¥{expense.amount_yen:,} {expense.category} on {expense.date}"


EDIT_TOOLS = (edit_event, remove_event, edit_expense, remove_expense)
