"""The household's rows as they travel through the code, and their JSON shapes.

The database row is the truth; these frozen dataclasses carry rows to tools and the CLI.
``to_json`` gives the stable shape of ``--json`` output and of tool results, leaving out
empty optional fields so the model reads less.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..privacy import member_of_scope, member_scope, shared_scope
from ._recurrence import Recurrence


def _compact(row: Any) -> dict[str, Any]:
    return {k: v for k, v in asdict(row).items() if v is not None}


@dataclass(frozen=True, slots=True)
class Household:
    name: str
    members: tuple[str, ...]
    created_at: str
    time_zone: str | None = None  # IANA name; None: not chosen, the server's zone is used

    @property
    def scope(self) -> str:
        """The shared memory scope; each member's own scope sits below it (``privacy``'s rule)."""
        return shared_scope(self.name)

    def member_scope(self, user: str) -> str:
        return member_scope(self.name, user)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "members": list(self.members),
            "created_at": self.created_at,
            "time_zone": self.time_zone,
        }


@dataclass(frozen=True, slots=True)
class ShoppingItem:
    id: str
    name: str
    quantity: int
    added_by: str
    created_at: str
    checked_at: str | None = None  # ticked off in the panel (still on the list, struck through)
    checked_by: str | None = None

    @property
    def checked(self) -> bool:
        return self.checked_at is not None

    def to_json(self) -> dict[str, Any]:
        return _compact(self)


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    title: str
    start: str
    end: str | None
    note: str | None
    added_by: str
    created_at: str
    private: bool = False  # only ``added_by`` sees it (and is reminded of it)

    @classmethod
    def of_row(cls, row: tuple[Any, ...]) -> Event:
        """From the columns ``_EVENT`` names (the last is the scope)."""
        id_, title, start, end, note, added_by, created_at, scope = row
        return cls(
            id_, title, start, end, note, added_by, created_at, member_of_scope(scope or "") is not None
        )

    def to_json(self) -> dict[str, Any]:
        shown = _compact(self)
        if not self.private:
            del shown["private"]
        return shown


@dataclass(frozen=True, slots=True)
class Todo:
    id: str
    title: str
    due: str | None
    done_at: str | None
    done_by: str | None
    added_by: str
    created_at: str
    private: bool = False  # only ``added_by`` sees it (and is reminded of it)
    repeat: Recurrence | None = None  # a recurring to-do: ``due`` is its next occurrence

    @classmethod
    def of_row(cls, row: tuple[Any, ...]) -> Todo:
        """From the columns ``_TODO`` names (then the scope and the recurrence)."""
        id_, title, due, done_at, done_by, added_by, created_at, scope, recur = row
        private = member_of_scope(scope or "") is not None
        return cls(id_, title, due, done_at, done_by, added_by, created_at, private, Recurrence.loads(recur))

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def to_json(self) -> dict[str, Any]:
        shown = {k: v for k, v in _compact(self).items() if k not in ("private", "repeat")}
        if self.private:
            shown["private"] = True
        if self.repeat is not None:
            shown["repeat"] = self.repeat.to_json()
        return shown


@dataclass(frozen=True, slots=True)
class Expense:
    id: str
    amount_yen: int
    category: str
    note: str | None
    date: str
    added_by: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return _compact(self)


@dataclass(frozen=True, slots=True)
class Counts:
    """What the count index says: sizes only, from COUNT queries."""

    upcoming_events: int
    open_todos: int
    shopping_items: int
    month_expenses: int
    month_expenses_yen: int
    recipes: int = 0  # saved recipes: read in the same statement (one round trip for the whole line)
