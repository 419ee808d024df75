"""The household butler's tools: the public contract of the reference app.

Names and wire fields are fixed (``list_events{from?, to?}``, ``add_expense{amount,
category, note?, date?}`` …) because prompts, channel allow-lists and stored proposals
refer to them. Every tool works on ``ctx.household`` only, through the typed dependencies
``ctx.deps`` (``HouseholdDeps``: the store, the memory engine, segments) that
``HouseholdDeps.member`` put there; the memory tools work at the speaker's scope. Write
tools carry the Japanese line shown on the confirmation card.

The household tools are ``async`` although SQLite is not: their queries take
milliseconds, and running them on the event loop's thread keeps the store's one
connection from being used by two threads at once when the loop runs reads in parallel.
The memory tools may load an embedding model, so they run in a worker thread.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from ..agent import Toolbox, ToolOutput, tool
from ..memory import KEYS_DESCRIPTION, MAX_KEY_CHARS, MAX_KEYS
from ._deps import Ctx, asker_zone
from ._panels import ShoppingList
from ._store import HouseholdStore
from ._values import (
    MAX_CATEGORY,
    MAX_NOTE,
    MAX_QUANTITY,
    MAX_TITLE,
    MAX_YEN,
    parse_day,
    parse_month,
    parse_when,
)

MEMORY_HITS = 5
MAX_MEMORY_CHARS = 500

Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE)]
Note = Annotated[str | None, Field(max_length=MAX_NOTE, description="Optional short note.")]
RowId = Annotated[str, Field(min_length=1, max_length=40)]
When = Annotated[
    str,
    AfterValidator(lambda v: parse_when(v, "time")),
    Field(description="ISO 8601 local time without offset, e.g. 2026-12-03T10:00, or a date for all day."),
]
Day = Annotated[str, AfterValidator(lambda v: parse_day(v, "date")), Field(description="ISO 8601 date.")]
Private = Annotated[
    bool,
    Field(
        description="True: only the speaker sees it (e.g. a surprise); shared with the household otherwise."
    ),
]
#: a fact's search keys, filled by the model (``MemoryEngine.remember``'s ``keys``)
Keys = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)]] | None,
    Field(max_length=MAX_KEYS, description=KEYS_DESCRIPTION),
]
Month = Annotated[str, AfterValidator(parse_month), Field(description="YYYY-MM; this month if omitted.")]


def _household(ctx: Ctx) -> tuple[HouseholdStore, str]:
    if ctx.household is None:
        raise LookupError("household tools need a member's context (HouseholdDeps.member)")
    return ctx.deps.store, ctx.household


def _md(when: str) -> str:
    """2026-12-03T10:00 → 12/3 10:00; 2026-12-03 → 12/3 (for cards, where the year is obvious)."""
    day, _, time = when.partition("T")
    _, month, dom = day.split("-")
    return f"{int(month)}/{int(dom)}" + (f" {time[:5]}" if time else "")


def _span(start: str, end: str | None) -> str:
    if not end:
        return _md(start)
    if end[:10] == start[:10] and "T" in end:
        return f"{_md(start)}–{end[11:16]}"
    return f"{_md(start)}–{_md(end)}"


def _json(value: Any) -> str:
    # a list returned bare would be taken for content blocks by Tool.run: the rows go as JSON text
    return json.dumps(value, ensure_ascii=False)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# -- reads ------------------------------------------------------------------


@tool(effect="read")
def list_shopping_items(ctx: Ctx) -> ToolOutput:
    """List the household's shopping list (with ids for remove_shopping_item)."""
    store, household = _household(ctx)
    items = store.shopping_items(household)
    return ToolOutput(_json([item.to_json() for item in items]), effects=(ShoppingList(tuple(items)),))


@tool(effect="read")
def list_events(
    ctx: Ctx,
    from_: Annotated[
        Day | None, Field(alias="from", description="First day, ISO 8601; today if omitted.")
    ] = None,
    to: Annotated[
        Day | None, Field(description="Last day, ISO 8601 (inclusive); no limit if omitted.")
    ] = None,
) -> str:
    """List the household's events from a day (today by default) up to another."""
    store, household = _household(ctx)
    first = from_ or store.today(household)
    return _json([e.to_json() for e in store.events(household, first, to, viewer=ctx.user)])


@tool(effect="read")
def list_todos(ctx: Ctx) -> str:
    """List the household's open to-dos, soonest due first (with ids for complete_todo)."""
    store, household = _household(ctx)
    return _json([t.to_json() for t in store.todos(household, viewer=ctx.user)])


@tool(effect="read")
def list_expenses(ctx: Ctx, month: Month | None = None) -> str:
    """List the household's expenses of one month in yen, with their count and total."""
    store, household = _household(ctx)
    rows = store.expenses(household, month)
    return _json(
        {
            "month": month or f"{store.today(household):%Y-%m}",
            "count": len(rows),
            "total_yen": sum(r.amount_yen for r in rows),
            "expenses": [r.to_json() for r in rows],
        }
    )


@tool(effect="read")
def search_memory(ctx: Ctx, query: Annotated[str, Field(min_length=1, max_length=200)]) -> str:
    """Search what you remember about the speaker and the household, by meaning and words."""
    zone = asker_zone(ctx.deps.store, ctx)  # "last month" is in their calendar
    hits = ctx.deps.memory.recall(query, ctx.scope, k=MEMORY_HITS, zone=zone)
    if not hits:
        return "nothing remembered about that"
    lines = []
    for hit in hits:
        whose = "theirs" if hit.memory.scope == ctx.scope else "shared"
        lines.append(f"- {_short(hit.excerpt, 200)} ({hit.memory.category}, {whose})")
    return "\n".join(lines)


# -- writes -----------------------------------------------------------------


def _shopping_summary(a: dict[str, Any]) -> str:
    quantity = a.get("quantity") or 1
    return f"{a['name']}{f' ×{quantity}' if quantity > 1 else ''} を買い物リストに追加"


@tool(effect="write", summary=_shopping_summary)
def add_shopping_item(
    ctx: Ctx,
    name: Title,
    quantity: Annotated[int, Field(strict=True, ge=1, le=MAX_QUANTITY)] = 1,
) -> str:
    """Add an item to the household's shopping list."""
    store, household = _household(ctx)
    item = store.add_shopping_item(household, name, quantity, by=ctx.user)
    return f"added to the shopping list: {item.name} ×{item.quantity} (id {item.id})"


@tool(
    effect="write",
    summary=lambda a: (
        f"{_span(a['start'], a.get('end'))} {a['title']} を予定に追加"
        + ("（自分だけ）" if a.get("private") else "")
    ),
)
def add_event(
    ctx: Ctx, title: Title, start: When, end: When | None = None, note: Note = None, private: Private = False
) -> str:
    """Add an event to the household's calendar (local times, ISO 8601)."""
    store, household = _household(ctx)
    event = store.add_event(household, title, start, end, note, by=ctx.user, private=private)
    return f"added event {event.title} at {_span(event.start, event.end)} (id {event.id})"


def _todo_summary(a: dict[str, Any]) -> str:
    due = f"（期限 {_md(a['due'])}）" if a.get("due") else " "
    return f"{a['title']}{due}をToDoに追加{'（自分だけ）' if a.get('private') else ''}"


@tool(effect="write", summary=_todo_summary)
def add_todo(ctx: Ctx, title: Title, due: When | None = None, private: Private = False) -> str:
    """Add a to-do for the household, optionally with a due date or time."""
    store, household = _household(ctx)
    todo = store.add_todo(household, title, due, by=ctx.user, private=private)
    return f"added to-do {todo.title} (id {todo.id})"


def _expense_summary(a: dict[str, Any]) -> str:
    day = f"{_md(a['date'])} " if a.get("date") else ""
    note = f"（{a['note']}）" if a.get("note") else " "
    return f"{day}¥{a['amount']:,} {a['category']}{note}を支出に記録"


@tool(effect="write", summary=_expense_summary)
def add_expense(
    ctx: Ctx,
    amount: Annotated[int, Field(strict=True, gt=0, le=MAX_YEN, description="Whole yen, e.g. 1200.")],
    category: Annotated[str, Field(min_length=1, max_length=MAX_CATEGORY, description="e.g. 食費, 日用品.")],
    note: Note = None,
    date: Annotated[Day | None, Field(description="Day spent, ISO 8601; today if omitted.")] = None,
) -> str:
    """Record a household expense in yen."""
    store, household = _household(ctx)
    expense = store.add_expense(household, amount, category, note, date, by=ctx.user)
    return f"recorded ¥{expense.amount_yen:,} {expense.category} on {expense.date} (id {expense.id})"


@tool(effect="write", summary=lambda a: f"ToDo {a['id']} を完了にする")
def complete_todo(ctx: Ctx, id: RowId) -> str:
    """Mark one of the household's to-dos done (the id comes from list_todos)."""
    store, household = _household(ctx)
    todo, changed = store.complete_todo(household, id, by=ctx.user)
    return f"done: {todo.title}" if changed else f"{todo.title} was already done"


@tool(effect="write", summary=lambda a: f"買い物リストから {a['id']} を削除")
def remove_shopping_item(ctx: Ctx, id: RowId) -> str:
    """Remove an item from the household's shopping list (the id comes from list_shopping_items)."""
    store, household = _household(ctx)
    item = store.remove_shopping_item(household, id)
    return f"removed from the shopping list: {item.name}"


@tool(effect="write", summary=lambda a: f"「{_short(a['content'])}」を覚える", private=True)
def remember(
    ctx: Ctx,
    content: Annotated[
        str, Field(min_length=1, max_length=MAX_MEMORY_CHARS, description="One lasting fact.")
    ],
    category: Literal["profile", "preference", "media", "event", "misc"],
    keys: Keys = None,
) -> str:
    """Remember one lasting fact the speaker told you about themselves."""
    provenance: dict[str, object] = {"by": ctx.user, "channel": ctx.channel, "conversation": ctx.conversation}
    if ctx.message:  # "why do you know this?" quotes the words it was asked in
        provenance["message_ids"] = [ctx.message]
    if ctx.segment:  # "when did we talk about it?" finds the segment it was said in (list_segments)
        provenance["segment"] = ctx.segment
    zone = asker_zone(ctx.deps.store, ctx)  # indexed under the day it was said in their calendar
    result = ctx.deps.memory.remember(
        content, ctx.scope, category=category, provenance=provenance, keys=keys, keys_by="model", zone=zone
    )
    if result.duplicate:
        return f"already remembered: {_short(result.memory.content, 200)}"
    return "remembered"


TOOLS = (
    list_shopping_items,
    list_events,
    list_todos,
    list_expenses,
    search_memory,
    add_shopping_item,
    add_event,
    add_todo,
    add_expense,
    complete_todo,
    remove_shopping_item,
    remember,
)


def household_toolbox() -> Toolbox:
    """The twelve household tools, in the stable order prompt caching wants."""
    return Toolbox(TOOLS)
