"""``shitsuji household …``: create a household and read its lists from the terminal.

Changes to the lists go through the butler's tools (and their confirmation cards); the
CLI only creates a household and shows what it holds. ``--name`` may be left out while
there is only one household. Events and to-dos follow the apps' one visibility rule: with
``--member`` what that member sees (the shared rows and their own private ones), without it
the shared rows only, and a line on stderr says how many private ones were left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar

import typer
from rich.table import Table

from ._app import STATE, JsonFlag, app, console, err_console, print_json

if TYPE_CHECKING:
    from ..household import HouseholdStore

household_app = typer.Typer(
    help="The household butler's data: members, shopping, events, to-dos, expenses.", no_args_is_help=True
)
app.add_typer(household_app, name="household")

NameOpt = Annotated[
    str | None, typer.Option("--name", "-n", help="Household name (default: the only household).")
]
SeenByOpt = Annotated[
    str | None,
    typer.Option(
        "--member",
        "-m",
        help="As this member sees it: the shared rows and their own private ones (default: shared only).",
    ),
]


@contextmanager
def _store() -> Iterator[HouseholdStore]:
    from ..household import HouseholdStore

    store = HouseholdStore(STATE.database())
    try:
        yield store
    finally:
        store.close()


class _Scoped(Protocol):
    @property
    def private(self) -> bool: ...


Row = TypeVar("Row", bound=_Scoped)


def _home(store: HouseholdStore, name: str | None, member: str | None) -> str:
    """The household's name; with ``member``, one of its members must be named."""
    home = store.resolve(name).name
    return home if member is None else store.member_home(member, home).name


def _visible(rows: list[Row], member: str | None) -> tuple[list[Row], int]:
    """The rows shown and how many private ones were left out. With ``member`` the store already read
    what they see (``privacy.Viewer``: the shared rows and their own); without one, the shared rows
    only — nobody's private things are shown to the terminal unasked."""
    if member is not None:
        return rows, 0
    shared = [r for r in rows if not r.private]
    return shared, len(rows) - len(shared)


def _hidden_note(hidden: int, what: str) -> None:
    """On stderr, so that ``--json`` output stays the rows alone."""
    if hidden:
        err_console.print(
            f"{hidden} private {what} not shown (a member's own): --member NAME shows what that member sees"
        )


def _as(member: str | None) -> str:
    return f" as {member} sees them" if member else " (shared)"


def _table(title: str, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(str(row.get(c, "")) for c in columns))
    return table


@household_app.command()
def init(
    name: Annotated[str, typer.Option("--name", "-n", help="Household name, used in memory scopes.")],
    member: Annotated[list[str], typer.Option("--member", "-m", help="A member's user id (repeat).")],
    time_zone: Annotated[
        str | None,
        typer.Option("--time-zone", help="IANA zone, e.g. Asia/Tokyo (default: the server's own)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Create household NAME with its members (refused if the name is taken)."""
    with _store() as store:
        home = store.create(name, member, time_zone=time_zone)
    if as_json:
        print_json(home.to_json())
    else:
        console.print(f"created household [bold]{home.name}[/] (members: {', '.join(home.members)})")


@household_app.command()
def shopping(name: NameOpt = None, as_json: JsonFlag = False) -> None:
    """The shopping list."""
    STATE.require_database()
    with _store() as store:
        home = store.resolve(name)
        rows = [i.to_json() for i in store.shopping_items(home.name)]
    if as_json:
        print_json(rows)
    else:
        console.print(_table(f"{home.name}: shopping", ("id", "name", "quantity", "added_by"), rows))


@household_app.command()
def events(
    name: NameOpt = None,
    first: Annotated[
        str | None, typer.Option("--from", help="First day, YYYY-MM-DD (default today).")
    ] = None,
    last: Annotated[
        str | None, typer.Option("--to", help="Last day, YYYY-MM-DD (default: no limit).")
    ] = None,
    member: SeenByOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Events from today (or --from) on: the shared ones, or what --member sees."""
    STATE.require_database()
    with _store() as store:
        home = _home(store, name, member)
        every = store.events(home, first or store.today(home), last, viewer=member)
    shown, hidden = _visible(every, member)
    rows = [e.to_json() for e in shown]
    _hidden_note(hidden, "events")
    if as_json:
        print_json(rows)
    else:
        columns = ("id", "start", "end", "title", "note", *(("private",) if member else ()))
        console.print(_table(f"{home}: events{_as(member)}", columns, rows))


@household_app.command()
def todos(
    name: NameOpt = None,
    include_done: Annotated[bool, typer.Option("--all", help="Include done to-dos.")] = False,
    member: SeenByOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Open to-dos, soonest due first, with a recurring one's rule: the shared ones, or what --member sees."""
    STATE.require_database()
    with _store() as store:
        home = _home(store, name, member)
        every = store.todos(home, include_done=include_done, viewer=member)
    shown, hidden = _visible(every, member)
    _hidden_note(hidden, "to-dos")
    if as_json:
        print_json([t.to_json() for t in shown])
        return
    rows = [t.to_json() | {"repeat": t.repeat.describe("en") if t.repeat else ""} for t in shown]
    columns = ("id", "title", "due", "repeat", "done_at", *(("private",) if member else ()))
    console.print(_table(f"{home}: to-dos{_as(member)}", columns, rows))


@household_app.command()
def expenses(
    name: NameOpt = None,
    month: Annotated[str | None, typer.Option("--month", help="YYYY-MM (default this month).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """One month's expenses in yen, with the total."""
    STATE.require_database()
    with _store() as store:
        home = store.resolve(name)
        rows = [x.to_json() for x in store.expenses(home.name, month)]
    if as_json:
        print_json(rows)
        return
    console.print(_table(f"{home.name}: expenses", ("id", "date", "amount_yen", "category", "note"), rows))
    console.print(f"total ¥{sum(r['amount_yen'] for r in rows):,} ({len(rows)} expenses)")


@household_app.command("time-zone")
def time_zone(
    zone: Annotated[str, typer.Argument(help="IANA time zone, e.g. Asia/Tokyo or Europe/London.")],
    name: NameOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Set the household's time zone: it decides "today", "this month" and every time shown."""
    STATE.require_database()
    with _store() as store:
        home = store.set_time_zone(store.resolve(name).name, zone)
        today = store.today(home.name)
    if as_json:
        print_json(home.to_json())
    else:
        console.print(f"household [bold]{home.name}[/] now lives in {home.time_zone} (today is {today})")


def _read_password(from_stdin: bool) -> str:
    import sys

    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    return str(password)


def _store_password(household: str, user: str, password: str) -> None:
    from ..audit import AuditLog
    from ..web import Accounts

    accounts = Accounts(STATE.database(), audit=AuditLog(STATE.database()))
    try:
        accounts.set_password(household, user, password)
    finally:
        accounts.close()
        if accounts.audit is not None:
            accounts.audit.close()


PasswordStdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from the first line of standard input.")
]


@household_app.command("add-member")
def add_member(
    user: Annotated[str, typer.Argument(help="The new member's user id.")],
    name: NameOpt = None,
    password_stdin: PasswordStdin = False,
    no_password: Annotated[
        bool,
        typer.Option("--no-password", help="Add without a web password (set one later with set-password)."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Add USER to the household, with a password for the web app (asked twice, or --password-stdin)."""
    STATE.require_database()
    from ..web import check_password

    password = None if no_password else check_password(_read_password(password_stdin))
    with _store() as store:
        home = store.add_member(store.resolve(name).name, user)
    if password is not None:
        _store_password(home.name, user, password)
    if as_json:
        print_json({**home.to_json(), "password_set": password is not None})
    else:
        console.print(
            f"added [bold]{user}[/] to household [bold]{home.name}[/] (members: {', '.join(home.members)})"
        )


@household_app.command("set-password")
def set_password(
    user: Annotated[str, typer.Argument(help="A member's user id.")],
    name: NameOpt = None,
    password_stdin: PasswordStdin = False,
    keep_line: Annotated[
        bool,
        typer.Option(
            "--keep-line",
            help="Keep the member's LINE link (by default a reset here unlinks it: it may be a lost phone).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Set or reset a member's web password (their signed-in sessions end; their LINE link is removed
    unless --keep-line). Recorded in the audit log as the member's own event."""
    STATE.require_database()
    from ..errors import UserInputError
    from ..web import check_password

    with _store() as store:
        home = store.resolve(name)
    if user not in home.members:
        raise UserInputError(
            f"{user!r} is not a member of household {home.name!r} (members: {', '.join(home.members)}): "
            f"add them with `shitsuji household add-member {user}`"
        )
    _store_password(home.name, user, check_password(_read_password(password_stdin)))
    unlinked = 0 if keep_line else _unlink_line(home.name, user)
    if as_json:
        print_json({"household": home.name, "user": user, "password_set": True, "line_unlinked": unlinked})
    else:
        note = f" (LINE link removed: link again with `shitsuji line link {user}`)" if unlinked else ""
        console.print(f"password set for [bold]{user}[/] in household [bold]{home.name}[/]{note}")


def _unlink_line(household: str, user: str) -> int:
    """A reset on the server may follow a lost phone: the member's LINE link goes with the old password."""
    from ..audit import AuditEvent, AuditLog
    from ..line import LineLinks

    database = STATE.database()
    links, log = LineLinks(database), AuditLog(database)
    try:
        gone = links.unlink_member(household, user)
        if gone:
            scope = f"household/{household}/user/{user}"
            log.record(AuditEvent("line.unlinked", actor="cli", household=household, scope=scope))
        return gone
    finally:
        links.close()
        log.close()
