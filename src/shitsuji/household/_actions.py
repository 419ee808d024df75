"""What a member does directly on a panel: tick, complete, reopen, delete, add — no card needed.

These are the person's own actions in their signed-in session (the butler asked for
nothing), so they run at once. Each kind is one typed action (a discriminated union on
``action``, as a client sends it) and ``apply`` is the single door through which every one
reaches the store, naming the household and the member who acted — the place to record
them. The butler sees the result the next time it looks: the count index and its lists
read the same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ._anniversaries import AnniversaryStore
from ._recipes import RecipeStore, parse_ingredients
from ._repeat_form import RepeatKind, panel_due, panel_rule
from ._store import HouseholdStore
from ._values import MAX_CATEGORY, MAX_NOTE, MAX_QUANTITY, MAX_TITLE, MAX_YEN

Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE)]
RowId = Annotated[str, Field(min_length=1, max_length=40)]
Note = Annotated[str | None, Field(max_length=MAX_NOTE)]
Moment = Annotated[str, Field(min_length=10, max_length=25, description="Local time, e.g. 2026-12-03T10:00")]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AddShoppingItem(_Action):
    action: Literal["add_shopping_item"]
    name: Title
    quantity: Annotated[int, Field(ge=1, le=MAX_QUANTITY)] = 1


class CheckShoppingItem(_Action):
    """Tick an item off (``checked``) or back on."""

    action: Literal["check_shopping_item"]
    id: RowId
    checked: bool = True


class RemoveShoppingItem(_Action):
    action: Literal["remove_shopping_item"]
    id: RowId


class AddEvent(_Action):
    action: Literal["add_event"]
    title: Title
    start: Moment
    end: Moment | None = None
    note: Note = None
    private: bool = False  # only the member who adds it sees it (and is reminded of it)


class RemoveEvent(_Action):
    action: Literal["remove_event"]
    id: RowId


class AddTodo(_Action):
    """A to-do; with ``repeat`` it comes back (``due``: the first day it may fall on). The rule's fields
    are plain text and numbers here and checked by ``panel_rule``: a wrong one is refused in the
    member's language, not as a schema error."""

    action: Literal["add_todo"]
    title: Title
    due: Moment | None = None
    time: Annotated[str | None, Field(max_length=8)] = None  # HH:MM on the due day (today without one)
    private: bool = False  # only the member who adds it sees it (and is reminded of it)
    repeat: RepeatKind | None = None  # weekly, monthly_weekday (nth weekdays), monthly_day
    weekdays: Annotated[list[Annotated[str, Field(max_length=10)]], Field(max_length=7)] = []
    weeks: Annotated[list[int | Annotated[str, Field(max_length=2)]], Field(max_length=5)] = []
    day_of_month: int | Annotated[str, Field(max_length=2)] | None = None


class CompleteTodo(_Action):
    """Mark a to-do done (``done``) or open again."""

    action: Literal["complete_todo"]
    id: RowId
    done: bool = True


class RemoveTodo(_Action):
    action: Literal["remove_todo"]
    id: RowId


class AddExpense(_Action):
    action: Literal["add_expense"]
    amount: Annotated[int, Field(gt=0, le=MAX_YEN)]
    category: Annotated[str, Field(min_length=1, max_length=MAX_CATEGORY)]
    note: Note = None
    date: Annotated[str | None, Field(max_length=10)] = None


class RemoveExpense(_Action):
    action: Literal["remove_expense"]
    id: RowId


class AddAnniversary(_Action):
    action: Literal["add_anniversary"]
    title: Title
    date: Annotated[str, Field(min_length=10, max_length=10, description="The day it began, 2020-06-01")]
    note: Note = None
    private: bool = False  # only the member who adds it sees it


class RemoveAnniversary(_Action):
    action: Literal["remove_anniversary"]
    id: RowId


class AddRecipe(_Action):
    action: Literal["add_recipe"]
    name: Title
    ingredients: Annotated[str, Field(min_length=1, max_length=2000, description="卵 2個、玉ねぎ 1個")]
    tags: Annotated[str | None, Field(max_length=200, description="Comma-separated")] = None
    source_url: Annotated[str | None, Field(max_length=500)] = None


class RemoveRecipe(_Action):
    action: Literal["remove_recipe"]
    id: RowId


PanelAction = Annotated[
    AddShoppingItem
    | CheckShoppingItem
    | RemoveShoppingItem
    | AddEvent
    | RemoveEvent
    | AddTodo
    | CompleteTodo
    | RemoveTodo
    | AddExpense
    | RemoveExpense
    | AddAnniversary
    | RemoveAnniversary
    | AddRecipe
    | RemoveRecipe,
    Field(discriminator="action"),
]
ACTIONS: TypeAdapter[PanelAction] = TypeAdapter(PanelAction)
LIST_FIELDS = frozenset({"weekdays", "weeks"})  # the fields a form sends once per ticked box (lists)


@dataclass(frozen=True, slots=True)
class Applied:
    """What an action did: the row as it is now (or was, when deleted), and whether anything changed
    (ticking an item that the spouse ticked a moment ago changes nothing)."""

    action: str
    row: dict[str, Any]
    changed: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "row": self.row, "changed": self.changed}


def _empty(value: str | None) -> str | None:
    return value if value and value.strip() else None


def apply(store: HouseholdStore, household: str, action: PanelAction, *, by: str) -> Applied:
    """Carry out ``action`` in ``household`` as member ``by``: the one way a panel changes the lists.

    Ids are looked up in this household only (another household's id is "not found"); the
    store checks every value as it does for the tools.
    """
    name = action.action
    if isinstance(action, AddShoppingItem):
        return Applied(
            name, store.add_shopping_item(household, action.name, action.quantity, by=by).to_json()
        )
    if isinstance(action, CheckShoppingItem):
        item, changed = store.check_shopping_item(household, action.id, checked=action.checked, by=by)
        return Applied(name, item.to_json(), changed)
    if isinstance(action, RemoveShoppingItem):
        return Applied(name, store.remove_shopping_item(household, action.id).to_json())
    if isinstance(action, AddEvent):
        event = store.add_event(
            household,
            action.title,
            action.start,
            _empty(action.end),
            action.note,
            by=by,
            private=action.private,
        )
        return Applied(name, event.to_json())
    if isinstance(action, RemoveEvent):
        return Applied(name, store.remove_event(household, action.id, viewer=by).to_json())
    if isinstance(action, AddTodo):
        rule = panel_rule(action.repeat, action.weekdays, action.weeks, action.day_of_month)
        due = panel_due(_empty(action.due), action.time, lambda: store.today(household))
        todo = store.add_todo(household, action.title, due, by=by, private=action.private, repeat=rule)
        return Applied(name, todo.to_json())
    if isinstance(action, CompleteTodo):
        if action.done:
            todo, changed = store.complete_todo(household, action.id, by=by)
        else:
            todo, changed = store.reopen_todo(household, action.id, viewer=by)
        return Applied(name, todo.to_json(), changed)
    if isinstance(action, RemoveTodo):
        return Applied(name, store.remove_todo(household, action.id, viewer=by).to_json())
    if isinstance(action, AddExpense):
        expense = store.add_expense(
            household, action.amount, action.category, action.note, _empty(action.date), by=by
        )
        return Applied(name, expense.to_json())
    if isinstance(action, RemoveExpense):
        return Applied(name, store.remove_expense(household, action.id).to_json())
    if isinstance(action, AddAnniversary | RemoveAnniversary):
        return _anniversary(AnniversaryStore(store.database, clock=store.clock), household, action, by)
    if isinstance(action, AddRecipe | RemoveRecipe):
        return _recipe(RecipeStore(store.database, clock=store.clock), household, action, by)
    assert_never(action)


def _recipe(book: RecipeStore, household: str, action: AddRecipe | RemoveRecipe, by: str) -> Applied:
    if isinstance(action, AddRecipe):
        tags = [t.strip() for t in re.split(r"[、,，]", action.tags or "") if t.strip()]
        parts = parse_ingredients(action.ingredients)
        row = book.add(household, action.name, parts, (), tags, _empty(action.source_url), by=by)
    else:
        row = book.remove(household, action.id)
    return Applied(action.action, row.to_json())


def _anniversary(
    found: AnniversaryStore, household: str, action: AddAnniversary | RemoveAnniversary, by: str
) -> Applied:
    if isinstance(action, AddAnniversary):
        row = found.add(household, action.title, action.date, action.note, by=by, private=action.private)
    else:
        row = found.remove(household, action.id, by)
    return Applied(action.action, row.to_json())
