"""``shitsuji remind``: the scheduler that lets the butler speak first — run it (once, or as a loop),
set a member's reminders, digest and quiet hours, and see the month's LINE pushes."""

from __future__ import annotations

import contextlib
import signal
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import UserInputError
from ._app import STATE, JsonFlag, app, console, print_json

if TYPE_CHECKING:
    from ..store import Database

remind_app = typer.Typer(
    help="Reminders and the morning digest (LINE push and the web app's notifications).", no_args_is_help=True
)
app.add_typer(remind_app, name="remind")


def _home_of(member: str, household: str | None) -> str:
    from ..household import HouseholdStore

    store = HouseholdStore(STATE.database())
    try:
        return store.member_home(member, household).name
    finally:
        store.close()


def _database() -> Database:
    from ..schedule import SCHEDULE_SCHEMA

    shared = STATE.database()
    shared.ensure(SCHEDULE_SCHEMA)
    return shared


@remind_app.command("run")
def run(
    once: Annotated[
        bool, typer.Option("--once", help="One round (plan, then push what is due), then exit.")
    ] = False,
    poll: Annotated[float, typer.Option("--poll", help="Seconds between rounds.")] = 10.0,
) -> None:
    """Send due reminders and digests: one round with --once, else until Ctrl-C / SIGTERM (serve starts one)."""
    import asyncio

    from ..schedule import Scheduler

    db = _database()
    scheduler = Scheduler(db, STATE.settings().line, budget=STATE.settings().budget())

    async def loop() -> None:
        stop = asyncio.Event()
        events = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                events.add_signal_handler(sig, stop.set)
        await scheduler.run(stop, poll_s=poll)

    if once:
        done = asyncio.run(scheduler.tick())
        console.print(
            f"planned {done.planned}, pushed {done.pushed}, retried {done.retried}, failed {done.failed}"
        )
    else:
        console.print("shitsuji remind: sending reminders and digests (Ctrl-C stops)")
        asyncio.run(loop())


@remind_app.command("set")
def set_(
    member: Annotated[str, typer.Argument(help="The member's user id.")],
    household: Annotated[
        str | None, typer.Option("--household", help="Household (default: the member's only one).")
    ] = None,
    reminders: Annotated[
        bool | None,
        typer.Option("--reminders/--no-reminders", help="Reminders before events and due to-dos."),
    ] = None,
    lead: Annotated[
        int | None, typer.Option("--lead", help="Minutes before an event or due time (0-1440).")
    ] = None,
    anniversary_days: Annotated[
        int | None,
        typer.Option(
            "--anniversary-days", help="Days before an anniversary, at the digest time (0: none; 0-30)."
        ),
    ] = None,
    digest: Annotated[bool | None, typer.Option("--digest/--no-digest", help="The morning digest.")] = None,
    digest_at: Annotated[
        str | None, typer.Option("--digest-at", help="Household-local time of the digest, HH:MM.")
    ] = None,
    quiet: Annotated[
        str | None,
        typer.Option("--quiet", help="Quiet hours HH:MM-HH:MM (no LINE pushes then); 'off' clears."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Turn a member's reminders or digest on or off, and set their lead, digest time and quiet hours."""
    from ..schedule import SettingsStore

    home = _home_of(member, household)
    changes: dict[str, object] = {}
    for name, value in (
        ("reminders", reminders),
        ("lead_minutes", lead),
        ("anniversary_days", anniversary_days),
        ("digest", digest),
        ("digest_at", digest_at),
    ):
        if value is not None:
            changes[name] = value
    if quiet is not None:
        if quiet.strip().lower() == "off":
            changes["quiet"] = None
        else:
            start, sep, end = quiet.partition("-")
            if not sep:
                raise UserInputError(
                    f"--quiet {quiet!r} is not a span: use HH:MM-HH:MM, e.g. 22:00-07:00, or off"
                )
            changes["quiet"] = (start, end)
    db = _database()
    now = SettingsStore(db).update(home, member, **changes)
    if as_json:
        print_json(now.to_json())
        return
    quiet_text = f"{now.quiet_from}-{now.quiet_to}" if now.quiet_from else "none"
    console.print(
        f"{member}: reminders {'on' if now.reminders else 'off'} ({now.lead_minutes} min before, "
        f"anniversaries {now.anniversary_days} days before), "
        f"digest {'on' if now.digest else 'off'} at {now.digest_at}, quiet hours {quiet_text}"
    )


@remind_app.command("status")
def status(as_json: JsonFlag = False) -> None:
    """The month's LINE pushes against the budget, and deliveries by status."""
    from ..schedule import Notifications, SystemClock

    db = _database()
    found = Notifications(db).status(SystemClock().now(), STATE.settings().budget())
    if as_json:
        print_json(found)
        return
    limit = found["push_budget"] or "no limit"
    console.print(f"LINE pushes in {found['month']}: {found['pushes_used']} of {limit}")
    for name, count in found["deliveries"].items():
        console.print(f"  {name}: {count}")


@remind_app.command("list")
def list_(
    member: Annotated[str, typer.Argument(help="The member's user id.")],
    household: Annotated[
        str | None, typer.Option("--household", help="Household (default: the member's only one).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """A member's notifications, newest first (what the web app lists)."""
    from datetime import datetime

    from ..household import HouseholdStore
    from ..schedule import Notifications

    home = _home_of(member, household)
    db = _database()
    rows = Notifications(db).of_member(home, member)
    if as_json:
        print_json([n.to_json() for n in rows])
        return
    zone = HouseholdStore(db).zone(home)  # stored in UTC; a person reads the household's clock
    for n in rows:
        at = datetime.fromisoformat(n.fire_at).astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
        console.print(f"{at}  [{n.status}{', late' if n.late else ''}]  {n.text.splitlines()[0]}")
