"""The household's own tables in the shitsuji database: who belongs, and their lists.

Every read and write names the household, and every lookup by id matches household *and*
id, so an id from another household is simply "not found": the model cannot reach across
households by guessing ids. ``member_home`` checks that a verified speaker belongs to a
household; ``HouseholdDeps.member`` builds their ``ToolContext`` from it, so the speaker is
never a tool argument.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from .. import store as db
from ..errors import NotFoundError, UserInputError
from ..privacy import Viewer, member_scope, shared_scope
from ..store._listen import notify
from ._records import Counts, Event, Expense, Household, ShoppingItem, Todo
from ._recurrence import Recurrence
from ._schema import HOUSEHOLD_SCHEMA
from ._values import (
    MAX_CATEGORY,
    check_name,
    check_note,
    check_quantity,
    check_text,
    check_time_zone,
    check_yen,
    day_after,
    month_of,
    month_range,
    parse_day,
    parse_when,
    zone_of,
)

Clock = Callable[[], datetime]

_SHOPPING = "id, name, quantity, added_by, created_at, checked_at, checked_by"
_EVENT = "id, title, start_at, end_at, note, added_by, created_at, scope"
_TODO = "id, title, due, done_at, done_by, added_by, created_at, scope, recur"
_EXPENSE = "id, amount_yen, category, note, spent_on, added_by, created_at"
_ANNIVERSARY = "id, title, day, note, added_by, created_at"
HOUSEHOLD_CHANNEL = "shitsuji_household"  # PostgreSQL: NOTIFY'd with a household's name when its data changes
_PREFIX = {
    "shopping_items": "s_",
    "events": "e_",
    "todos": "t_",
    "expenses": "x_",
    "anniversaries": "a_",
    "recipes": "r_",
    "nisa_contributions": "n_",
}


def _utcnow() -> datetime:
    return datetime.now(UTC)


class HouseholdStore:
    """Households, their members, and their shopping, events, to-dos, expenses and anniversaries."""

    def __init__(self, database: db.Database, *, clock: Clock = _utcnow) -> None:
        database.ensure(HOUSEHOLD_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    @property
    def database(self) -> db.Database:
        """The database the household's tables live in (the domain stores share it)."""
        return self._conn

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def zone(self, household: str) -> tzinfo:
        """The household's time zone (the server's own until the household chooses one)."""
        row = self._conn.execute("SELECT time_zone FROM households WHERE name = ?", (household,)).fetchone()
        return zone_of(row[0] if row else None)

    def now(self, household: str) -> datetime:
        """The household's wall clock: what "today", "this month" and every shown time go by."""
        return self.clock().astimezone(self.zone(household))

    def today(self, household: str) -> date:
        """Today on the household's calendar, wherever the server runs."""
        return self.now(household).date()

    # -- households -------------------------------------------------------

    def create(self, name: str, members: Iterable[str], *, time_zone: str | None = None) -> Household:
        """A new household with at least one member; refuses a name already taken."""
        name = check_name(name, "household name")
        people = list(dict.fromkeys(check_name(m, "member") for m in members))
        zone = check_time_zone(time_zone) if time_zone is not None else None
        if not people:
            raise UserInputError(f"household {name!r} needs at least one member: add --member YOUR_ID")
        now = self._now()
        with self._changing(name) as conn:
            created = conn.execute(  # ON CONFLICT: two processes creating the same name at once, one wins
                "INSERT INTO households (name, created_at, time_zone) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (name, now, zone),
            ).rowcount
            if not created:
                existing = self._members(name, conn)
                raise UserInputError(
                    f"household {name!r} already exists (members: {', '.join(existing)}): "
                    "pick another --name, or keep using this one"
                )
            conn.executemany(
                'INSERT INTO household_members (household, "user", created_at) VALUES (?, ?, ?)',
                [(name, person, now) for person in people],
            )
        return Household(name, tuple(people), now, zone)

    def set_time_zone(self, name: str, time_zone: str) -> Household:
        """Change the household's time zone (an IANA name such as Asia/Tokyo)."""
        zone = check_time_zone(time_zone)
        home = self.get(name)
        with self._changing(home.name) as conn:
            conn.execute("UPDATE households SET time_zone = ? WHERE name = ?", (zone, home.name))
        return self.get(home.name)

    def add_member(self, name: str, user: str) -> Household:
        """Add ``user`` to household ``name``; refused if they already belong to it."""
        person = check_name(user, "member")
        home = self.get(name)
        if person in home.members:
            raise UserInputError(f"{person!r} is already a member of household {home.name!r}")
        with self._changing(home.name) as conn:
            conn.execute(
                'INSERT INTO household_members (household, "user", created_at) VALUES (?, ?, ?)',
                (home.name, person, self._now()),
            )
        return self.get(home.name)

    def get(self, name: str) -> Household:
        # one statement for the household and its members (a turn reads them twice: on PostgreSQL
        # each statement is a round trip)
        rows = self._conn.execute(
            'SELECT h.name, h.created_at, h.time_zone, m."user" FROM households h '
            "LEFT JOIN household_members m ON m.household = h.name WHERE h.name = ? ORDER BY m.rowid",
            (name,),
        ).fetchall()
        if not rows:
            known = ", ".join(h.name for h in self.households()) or "none yet"
            raise NotFoundError(
                f"no household named {name!r} (known: {known}): "
                f"create it with `shitsuji household init --name {name} --member YOUR_ID`"
            )
        first = rows[0]
        return Household(first[0], tuple(r[3] for r in rows if r[3] is not None), first[1], first[2])

    def households(self) -> list[Household]:
        rows = self._conn.execute(
            "SELECT name, created_at, time_zone FROM households ORDER BY name"
        ).fetchall()
        return [Household(name, self._members(name), created, zone) for name, created, zone in rows]

    def resolve(self, name: str | None = None) -> Household:
        """The household called ``name``, or the only one there is."""
        if name is not None:
            return self.get(name)
        found = self.households()
        if not found:
            raise NotFoundError(
                "there is no household yet: create one with `shitsuji household init --name NAME --member YOUR_ID`"
            )
        if len(found) > 1:
            raise UserInputError(
                f"there are several households ({', '.join(h.name for h in found)}): choose one with --name"
            )
        return found[0]

    def member_home(
        self, user: str, household: str | None = None, *, read: Household | None = None
    ) -> Household:
        """The household of a verified ``user``, who must belong to it (without ``household``: their only one).
        ``read``: the household as already read this request (with the session), checked, not read again."""
        if read is not None and read.name == household:
            home = read
        else:
            home = self.get(household) if household is not None else self._home_of(user)
        if user not in home.members:
            raise UserInputError(
                f"{user!r} is not a member of household {home.name!r} (members: {', '.join(home.members)}): "
                f"use one of those ids, or add them with `shitsuji household add-member {user} --name {home.name}`"
            )
        return home

    def _home_of(self, user: str) -> Household:
        every = self.households()
        mine = [h for h in every if user in h.members]
        if len(mine) == 1:
            return mine[0]
        if len(mine) > 1:
            raise UserInputError(
                f"{user!r} belongs to several households ({', '.join(h.name for h in mine)}): name one"
            )
        if len(every) == 1:
            return every[0]  # the membership check names its members
        if not every:
            raise NotFoundError(
                "there is no household yet: create one with `shitsuji household init --name NAME --member YOUR_ID`"
            )
        known = ", ".join(f"{h.name} ({', '.join(h.members)})" for h in every) or "none yet"
        raise NotFoundError(
            f"{user!r} is not a member of any household (known: {known}): sign in as a member"
        )

    def _members(self, name: str, conn: db.Tx | db.Database | None = None) -> tuple[str, ...]:
        """``conn``: inside a write, read on its connection (a second one from the pool could be the
        one too many while every pooled connection waits inside a write)."""
        rows = (
            (conn or self._conn)
            .execute('SELECT "user" FROM household_members WHERE household = ? ORDER BY rowid', (name,))
            .fetchall()
        )
        return tuple(r[0] for r in rows)

    # -- shopping ---------------------------------------------------------

    def add_shopping_item(self, household: str, name: str, quantity: int = 1, *, by: str) -> ShoppingItem:
        name, quantity = check_text(name, "item name"), check_quantity(quantity)
        row_id, now = self._insert("shopping_items", household, {"name": name, "quantity": quantity}, by)
        return ShoppingItem(row_id, name, quantity, by, now)

    def shopping_items(self, household: str) -> list[ShoppingItem]:
        """The list, still-to-buy items first (ticked-off ones stay until removed)."""
        order = "checked_at IS NOT NULL, created_at, rowid"
        return [ShoppingItem(*r) for r in self._select(_SHOPPING, "shopping_items", household, "", (), order)]

    def check_shopping_item(
        self, household: str, item_id: str, *, checked: bool = True, by: str
    ) -> tuple[ShoppingItem, bool]:
        """Tick an item off (``checked``) or back on; the flag is False when it already was so."""
        now = self._now()
        with self._changing(household) as conn:
            self._one(conn, _SHOPPING, "shopping_items", household, item_id, "shopping item")
            if checked:
                sql = (
                    "SET checked_at = ?, checked_by = ? WHERE household = ? AND id = ? AND checked_at IS NULL"
                )
                params: tuple[Any, ...] = (now, by, household, item_id)
            else:
                sql = "SET checked_at = NULL, checked_by = NULL WHERE household = ? AND id = ? AND checked_at IS NOT NULL"
                params = (household, item_id)
            changed = conn.execute(f"UPDATE shopping_items {sql}", params).rowcount
            row = self._one(conn, _SHOPPING, "shopping_items", household, item_id, "shopping item")
        return ShoppingItem(*row), bool(changed)

    def remove_shopping_item(self, household: str, item_id: str) -> ShoppingItem:
        """Delete one item of this household's list, or raise ``NotFoundError``."""
        return ShoppingItem(*self._delete(_SHOPPING, "shopping_items", household, item_id, "shopping item"))

    # -- events -----------------------------------------------------------

    def add_event(
        self,
        household: str,
        title: str,
        start: str,
        end: str | None = None,
        note: str | None = None,
        *,
        by: str,
        private: bool = False,
    ) -> Event:
        """A new event of the household (``private``: member ``by``'s own, shown and reminded to them only)."""
        title, start, note = check_text(title, "event title"), parse_when(start, "start"), check_note(note)
        end = parse_when(end, "end") if end else None
        if end is not None and end < start:
            raise UserInputError(f"end {end} is before start {start}: give an end after the start")
        values = {
            "title": title,
            "start_at": start,
            "end_at": end,
            "note": note,
            "scope": _scope(household, by, private),
        }
        row_id, now = self._insert("events", household, values, by)
        return Event(row_id, title, start, end, note, by, now, private)

    def events(
        self,
        household: str,
        first: date | str | None = None,
        last: date | str | None = None,
        *,
        viewer: str | None = None,
    ) -> list[Event]:
        """Events not over before ``first`` and starting no later than ``last`` (whole days, inclusive);
        with a ``viewer``, only what they see (the shared ones and their own private ones)."""
        where, params = _seen(household, viewer)
        if first is not None:
            where += " AND COALESCE(end_at, start_at) >= ?"
            params.append(parse_day(first, "from"))
        if last is not None:
            where += " AND start_at < ?"
            params.append(day_after(parse_day(last, "to")))
        rows = self._select(_EVENT, "events", household, where, params, "start_at, rowid")
        return [Event.of_row(r) for r in rows]

    def remove_event(self, household: str, event_id: str, *, viewer: str | None = None) -> Event:
        return Event.of_row(self._delete(_EVENT, "events", household, event_id, "event", viewer))

    # -- to-dos -----------------------------------------------------------

    def add_todo(
        self,
        household: str,
        title: str,
        due: str | None = None,
        *,
        by: str,
        private: bool = False,
        repeat: Recurrence | None = None,
    ) -> Todo:
        """A new to-do (``private``: member ``by``'s own). With ``repeat`` it recurs: ``due`` becomes the
        first occurrence on or after the given day (today when none), keeping a given time of day."""
        title, due = check_text(title, "to-do title"), parse_when(due, "due") if due else None
        if repeat is not None:
            start = date.fromisoformat(due[:10]) if due else self.today(household)
            due = repeat.first_from(start).isoformat() + (due[10:] if due else "")
        values = {"title": title, "due": due, "scope": _scope(household, by, private)}
        values["recur"] = repeat.dumps() if repeat is not None else None
        row_id, now = self._insert("todos", household, values, by)
        return Todo(row_id, title, due, None, None, by, now, private, repeat)

    def todos(self, household: str, *, include_done: bool = False, viewer: str | None = None) -> list[Todo]:
        """The to-dos (open ones only unless ``include_done``); with a ``viewer``, only what they see."""
        where, params = _seen(household, viewer)
        where += "" if include_done else " AND done_at IS NULL"
        order = "done_at IS NOT NULL, due IS NULL, due, created_at, rowid"
        return [Todo.of_row(r) for r in self._select(_TODO, "todos", household, where, params, order)]

    def complete_todo(self, household: str, todo_id: str, *, by: str) -> tuple[Todo, bool]:
        """Mark a to-do ``by`` can see done; the flag is False when it already was (nothing changes then).
        A recurring one stays open: its ``due`` moves to the first occurrence after the old one and today."""
        now = self._now()
        with self._changing(household) as conn:
            todo = Todo.of_row(self._one(conn, _TODO, "todos", household, todo_id, "to-do", by))
            if todo.repeat is not None and todo.due is not None and not todo.done:
                after = max(date.fromisoformat(todo.due[:10]), self.today(household))
                due = todo.repeat.next_after(after).isoformat() + todo.due[10:]
                conn.execute(
                    "UPDATE todos SET due = ? WHERE household = ? AND id = ?", (due, household, todo_id)
                )
                return replace(todo, due=due), True
            changed = conn.execute(
                "UPDATE todos SET done_at = ?, done_by = ? WHERE household = ? AND id = ? AND done_at IS NULL",
                (now, by, household, todo_id),
            ).rowcount
        if not changed:
            return todo, False
        return replace(todo, done_at=now, done_by=by), True

    def reopen_todo(self, household: str, todo_id: str, *, viewer: str | None = None) -> tuple[Todo, bool]:
        """Mark a done to-do open again; the flag is False when it was open (nothing changes then)."""
        with self._changing(household) as conn:
            row = self._one(conn, _TODO, "todos", household, todo_id, "to-do", viewer)
            changed = conn.execute(
                "UPDATE todos SET done_at = NULL, done_by = NULL "
                "WHERE household = ? AND id = ? AND done_at IS NOT NULL",
                (household, todo_id),
            ).rowcount
        return replace(Todo.of_row(row), done_at=None, done_by=None), bool(changed)

    def remove_todo(self, household: str, todo_id: str, *, viewer: str | None = None) -> Todo:
        return Todo.of_row(self._delete(_TODO, "todos", household, todo_id, "to-do", viewer))

    # -- expenses ---------------------------------------------------------

    def add_expense(
        self,
        household: str,
        amount_yen: int,
        category: str,
        note: str | None = None,
        day: date | str | None = None,
        *,
        by: str,
    ) -> Expense:
        amount, category = check_yen(amount_yen), check_text(category, "category", MAX_CATEGORY)
        note, spent_on = (
            check_note(note),
            parse_day(day if day is not None else self.today(household), "date"),
        )
        values = {"amount_yen": amount, "category": category, "note": note, "spent_on": spent_on}
        row_id, now = self._insert("expenses", household, values, by)
        return Expense(row_id, amount, category, note, spent_on, by, now)

    def expenses(self, household: str, month: str | None = None) -> list[Expense]:
        """The expenses of ``month`` (``YYYY-MM``; this month by default), oldest first."""
        first, following = month_range(month or month_of(self.today(household)))
        where = " AND spent_on >= ? AND spent_on < ?"
        rows = self._select(
            _EXPENSE, "expenses", household, where, (first, following), "spent_on, created_at, rowid"
        )
        return [Expense(*r) for r in rows]

    def remove_expense(self, household: str, expense_id: str) -> Expense:
        return Expense(*self._delete(_EXPENSE, "expenses", household, expense_id, "expense"))

    def title_of(self, household: str, row_id: str, *, viewer: str | None = None) -> str | None:
        """What a row is called (an item's name, an event's title …), found by its id; None if gone
        (or, with a ``viewer``, not theirs to see: another member's private row, their NISA purchase)."""
        table = next((t for t, prefix in _PREFIX.items() if row_id.startswith(prefix)), None)
        if table is None:
            return None
        column = {
            "shopping_items": "name",
            "expenses": "category",
            "recipes": "name",
            "nisa_contributions": "fund",
        }
        where, params = "", list[str]()
        if viewer is not None and table in ("events", "todos", "anniversaries"):
            where, params = _seen(household, viewer)
        elif viewer is not None and table == "nisa_contributions":
            where, params = " AND owner = ?", [viewer]
        row = self._conn.execute(
            f"SELECT {column.get(table, 'title')} FROM {table} WHERE household = ? AND id = ?{where}",
            (household, row_id, *params),
        ).fetchone()
        return str(row[0]) if row else None

    # -- summaries --------------------------------------------------------

    def counts(self, household: str, today: date, *, viewer: str | None = None) -> Counts:
        """Sizes for the count index, from COUNT queries over the indexed columns (with a ``viewer``:
        of what they see)."""
        sql, params = _counts_sql(household, today, viewer)
        return Counts(*self._conn.execute(sql, params).fetchone())

    def counts_with(
        self, household: str, today: date, viewer: str, table: str, columns: str
    ) -> tuple[Counts, list[tuple[Any, ...]]]:
        """``counts`` for ``viewer`` and the rows of ``table`` they see (``columns``, by the same rule), in
        one statement: the count index's line is one round trip. ``table`` and ``columns`` are ours."""
        rows = self._conn.execute(*_counts_with_sql(household, today, viewer, table, columns)).fetchall()
        return Counts(*rows[0][:6]), [r[6:] for r in rows if r[6] is not None]

    def counts_ahead(self, household: str, today: date, viewer: str, table: str, columns: str) -> None:
        """``counts_with``'s statement sent ahead (``Database.ahead``): inside a ``one_connection`` block it
        rides in the round trip of the block's next read, and ``counts_with`` then costs no trip."""
        self._conn.ahead(*_counts_with_sql(household, today, viewer, table, columns))

    def dump(self, household: str) -> dict[str, Any]:
        """Every row of the household as JSON-ready data (what a prompt without an index would carry)."""
        rows = self._select(_EXPENSE, "expenses", household, "", (), "spent_on, created_at, rowid")
        return {
            "household": self.get(household).to_json(),
            "shopping_items": [i.to_json() for i in self.shopping_items(household)],
            "events": [e.to_json() for e in self.events(household)],
            "todos": [t.to_json() for t in self.todos(household, include_done=True)],
            "expenses": [Expense(*r).to_json() for r in rows],
            "anniversaries": [
                dict(zip(("id", "title", "day", "note", "added_by", "created_at"), r, strict=True))
                for r in self._select(_ANNIVERSARY, "anniversaries", household, "", (), "day, id")
            ],
            "recipes": [
                list(r)
                for r in self._select("id, name, steps, tags, source_url", "recipes", household, "", (), "id")
            ],
            "payers": [list(r) for r in self._select("id, paid_by", "expenses", household, "", (), "id")],
            "split": [list(r) for r in self._select("ratio", "household_splits", household, "", (), "ratio")],
            "recipe_ingredients": [
                list(r)
                for r in self._select(
                    "recipe, position, name, amount",
                    "recipe_ingredients",
                    household,
                    "",
                    (),
                    "recipe, position",
                )
            ],
        }

    # -- helpers ----------------------------------------------------------

    def _now(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    @contextmanager
    def _changing(self, household: str) -> Iterator[db.Tx]:
        """A write to ``household``'s data; on PostgreSQL it also tells the listening web apps, in the
        same transaction (the notification is delivered on commit, never for a rolled-back change)."""
        with self._conn.write() as conn:
            yield conn
            notify(self._conn, conn, HOUSEHOLD_CHANNEL, household)

    def _insert(self, table: str, household: str, values: dict[str, Any], by: str) -> tuple[str, str]:
        row_id = _PREFIX[table] + secrets.token_hex(4)
        now = self._now()
        columns = ["id", "household", *values, "added_by", "created_at"]
        with self._changing(household) as conn:
            if not conn.execute("SELECT 1 FROM households WHERE name = ?", (household,)).fetchone():
                raise NotFoundError(
                    f"no household named {household!r}: create it with "
                    f"`shitsuji household init --name {household} --member YOUR_ID`"
                )
            conn.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                (row_id, household, *values.values(), by, now),
            )
        return row_id, now

    def _select(
        self, columns: str, table: str, household: str, where: str, params: Iterable[Any], order: str
    ) -> list[tuple[Any, ...]]:
        sql = f"SELECT {columns} FROM {table} WHERE household = ?{where} ORDER BY {order}"
        return self._conn.execute(sql, (household, *params)).fetchall()

    def _delete(
        self, columns: str, table: str, household: str, row_id: str, what: str, viewer: str | None = None
    ) -> tuple[Any, ...]:
        """Delete one row of this household's ``table`` (that ``viewer`` sees) and return it, or raise
        ``NotFoundError``."""
        with self._changing(household) as conn:
            row = self._one(conn, columns, table, household, row_id, what, viewer)
            deleted = conn.execute(f"DELETE FROM {table} WHERE household = ? AND id = ?", (household, row_id))
            if deleted.rowcount == 0:  # deleted by another request since our read (read committed)
                raise NotFoundError(
                    f"no {what} with id {row_id!r} in this household: list them to see the ids"
                )
        return row

    @staticmethod
    def _one(
        conn: db.Tx,
        columns: str,
        table: str,
        household: str,
        row_id: str,
        what: str,
        viewer: str | None = None,
    ) -> tuple[Any, ...]:
        """One row by id; with a ``viewer`` (tables with a scope), only one they see: another member's
        private row is "not found" exactly as another household's."""
        seen, scopes = _seen(household, viewer)
        row: tuple[Any, ...] | None = conn.execute(
            f"SELECT {columns} FROM {table} WHERE household = ? AND id = ?{seen}",
            (household, row_id, *scopes),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no {what} with id {row_id!r} in this household: list them to see the ids")
        return row


def _scope(household: str, member: str, private: bool) -> str:
    """A new row's scope: the member's own when ``private``, else the household's."""
    return member_scope(household, member) if private else shared_scope(household)


def _counts_sql(
    household: str, today: date, viewer: str | None, also: str = ""
) -> tuple[str, tuple[Any, ...]]:
    """The count index's one statement (``counts``): one row; ``also``: more columns, of a join that follows."""
    day = today.isoformat()
    seen, scopes = _seen(household, viewer)
    first, following = month_range(month_of(today))
    return (
        f"""
        SELECT e.n, t.n, s.n, x.n, x.total, r.n{also} FROM
          (SELECT COUNT(*) AS n FROM events WHERE household = ? AND COALESCE(end_at, start_at) >= ?{seen}) AS e,
          (SELECT COUNT(*) AS n FROM todos WHERE household = ? AND done_at IS NULL{seen}) AS t,
          (SELECT COUNT(*) AS n FROM shopping_items WHERE household = ? AND checked_at IS NULL) AS s,
          (SELECT COUNT(*) AS n, COALESCE(SUM(amount_yen), 0) AS total FROM expenses
             WHERE household = ? AND spent_on >= ? AND spent_on < ?) AS x,
          (SELECT COUNT(*) AS n FROM recipes WHERE household = ?) AS r""",
        (household, day, *scopes, household, *scopes, household, household, first, following, household),
    )


def _counts_with_sql(
    household: str, today: date, viewer: str, table: str, columns: str
) -> tuple[str, tuple[Any, ...]]:
    """``counts_with``'s one statement: the counts' row joined to the rows of ``table`` ``viewer`` sees."""
    sql, params = _counts_sql(household, today, viewer, ", rows_seen.*")
    seen, scopes = _seen(household, viewer)
    return (
        f"{sql} LEFT JOIN (SELECT {columns} FROM {table} WHERE household = ?{seen}) AS rows_seen ON TRUE",
        (*params, household, *scopes),
    )


def _seen(household: str, viewer: str | None) -> tuple[str, list[str]]:
    """The visibility rule on a table's ``scope`` column, for ``viewer`` (None: every row)."""
    if viewer is None:
        return "", []
    where, params = Viewer(household, viewer).where()
    return f" AND {where}", params
