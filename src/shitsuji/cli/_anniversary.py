"""``shitsuji household anniversary …``: a member's view of the yearly dates, and adding or removing one.

Every command names the member (``--member``): they see the household's shared
anniversaries and their own private ones, the same rule as the app and the butler.
The operator at the terminal acts as that member, as with ``household set-password``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import JsonFlag, console, print_json
from ._household import NameOpt, _store, _table, household_app

if TYPE_CHECKING:  # the stores load when a command runs: listing the commands stays quick
    from ..household import AnniversaryStore, HouseholdStore

anniversary_app = typer.Typer(
    help="Yearly dates (birthdays, the wedding day): list, add, remove.", no_args_is_help=True
)
household_app.add_typer(anniversary_app, name="anniversary")

MemberOpt = Annotated[str, typer.Option("--member", "-m", help="The member acting (sees shared + own).")]


@contextmanager
def _anniversaries(name: str | None, member: str) -> Iterator[tuple[HouseholdStore, AnniversaryStore, str]]:
    from ..household import AnniversaryStore

    with _store() as store:
        home = store.member_home(member, store.resolve(name).name)
        yield store, AnniversaryStore(store.database, clock=store.clock), home.name


@anniversary_app.command("list")
def list_(member: MemberOpt, name: NameOpt = None, as_json: JsonFlag = False) -> None:
    """The anniversaries MEMBER sees, soonest first, with the days until each."""
    with _anniversaries(name, member) as (store, found, household):
        rows = [u.to_json() for u in found.upcoming(household, member, store.today(household))]
    if as_json:
        print_json(rows)
    else:
        console.print(
            _table(f"{household}: anniversaries", ("id", "title", "day", "next", "days", "private"), rows)
        )


@anniversary_app.command()
def add(
    title: Annotated[str, typer.Argument(help="e.g. 結婚記念日, Hana's birthday.")],
    day: Annotated[str, typer.Argument(help="The day it began, YYYY-MM-DD.")],
    member: MemberOpt,
    private: Annotated[bool, typer.Option("--private", help="Only MEMBER sees it.")] = False,
    note: Annotated[str | None, typer.Option("--note", help="A short note.")] = None,
    name: NameOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Add an anniversary as MEMBER (shared with the household unless --private)."""
    with _anniversaries(name, member) as (_, found, household):
        row = found.add(household, title, day, note, by=member, private=private)
    if as_json:
        print_json(row.to_json())
    else:
        console.print(f"added anniversary [bold]{row.title}[/] on {row.day} (id {row.id})")


@anniversary_app.command()
def remove(
    row_id: Annotated[str, typer.Argument(metavar="ID", help="From `household anniversary list`.")],
    member: MemberOpt,
    name: NameOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Remove an anniversary MEMBER can see."""
    with _anniversaries(name, member) as (_, found, household):
        row = found.remove(household, row_id, member)
    if as_json:
        print_json(row.to_json())
    else:
        console.print(f"removed anniversary [bold]{row.title}[/]")
