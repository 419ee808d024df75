"""``shitsuji audit``: the audit log — writes, cards, decisions, memory changes and sign-ins."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..audit import AuditLog
from ..household import HouseholdStore
from ._app import STATE, JsonFlag, app, console, print_json


@app.command()
def audit(
    household: Annotated[
        str | None, typer.Option("--household", help="Only this household's events.")
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            help="As this member sees it (needs their household; private events of others left out).",
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=100000, help="At most this many events.")
    ] = 50,
    as_json: JsonFlag = False,
) -> None:
    """The audit log, newest first: who changed what, when, and through which channel."""
    log = AuditLog(STATE.database())
    private = shared = None
    if user is not None:
        home = HouseholdStore(STATE.database()).member_home(user, household)
        household, private, shared = home.name, home.member_scope(user), home.scope
    found = log.events(
        household=household, viewer=user, private_scope=private, shared_scope=shared, limit=limit
    )
    if as_json:
        print_json([e.to_json() for e in found])
        return
    if not found:
        console.print("no events recorded yet")
        return
    table = Table("when", "household", "who", "channel", "action", "subject", box=None, pad_edge=False)
    for e in found:
        summary = e.detail.get("summary") or e.subject or ""
        table.add_row(
            e.at.astimezone().strftime("%Y-%m-%d %H:%M:%S") if e.at else "",
            e.household or "",
            escape(e.actor),
            e.channel or "",
            e.action,
            escape(str(summary)),
        )
    console.print(table)
