"""``shitsuji audit``: the audit log — writes, cards, decisions, memory changes and sign-ins."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

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
    STATE.require_database()
    from ..audit import AuditLog
    from ..household import HouseholdStore
    from ..privacy import Viewer

    log = AuditLog(STATE.database())
    viewer = None
    if user is not None:  # the same rule as the apps (``privacy.Viewer``)
        home = HouseholdStore(STATE.database()).member_home(user, household)
        viewer = Viewer(home.name, user)
    found = log.events(household=household, viewer=viewer, limit=limit)
    if as_json:
        print_json([e.to_json() for e in found])
        return
    if not found:
        console.print("no events recorded yet")
        return
    from ..household._values import zone_of

    homes = HouseholdStore(STATE.database())
    try:  # each event in its household's clock (the server's own for events of no household)
        zones = {h.name: zone_of(h.time_zone) for h in homes.households()}
    finally:
        homes.close()
    table = Table("when", "household", "who", "channel", "action", "subject", box=None, pad_edge=False)
    for e in found:
        summary = e.detail.get("summary") or e.subject or ""
        table.add_row(
            e.at.astimezone(zones.get(e.household or "")).strftime("%Y-%m-%d %H:%M:%S %Z") if e.at else "",
            e.household or "",
            escape(e.actor),
            e.channel or "",
            e.action,
            escape(str(summary)),
        )
    console.print(table)
