"""``shitsuji line link`` (a one-time code that links a LINE account to a member) and ``shitsuji worker``
(the LINE worker and memory extraction in a process of their own)."""

from __future__ import annotations

import contextlib
import signal
from typing import Annotated

import typer

from ._app import STATE, JsonFlag, app, console, err_console, print_json

line_app = typer.Typer(help="The LINE channel: link a member's LINE account.", no_args_is_help=True)
app.add_typer(line_app, name="line")


@line_app.command()
def link(
    user: Annotated[str, typer.Argument(help="The member's user id.")],
    household: Annotated[
        str | None, typer.Option("--household", help="Household name (default: the user's only one).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Print a one-time code (10 minutes, single use) for USER to send to the bot from LINE."""
    STATE.require_database()
    from ..household import HouseholdStore
    from ..line import CODE_TTL, LineLinks

    store = HouseholdStore(STATE.database())
    try:
        home = store.member_home(user, household)
    finally:
        store.close()
    links = LineLinks(STATE.database())
    try:
        code = links.new_code(home.name, user)
        expires = links.clock() + CODE_TTL
    finally:
        links.close()
    from ..household._values import zone_of

    expires = expires.astimezone(zone_of(home.time_zone))  # the household's clock, not UTC
    configured = STATE.settings().line is not None
    if as_json:
        print_json(
            {
                "code": code,
                "user": user,
                "household": home.name,
                "expires_at": expires.isoformat(),
                "line_configured": configured,
            }
        )
        return
    console.print(f"send [bold]{code}[/] to the butler's LINE account in a one-to-one chat")
    console.print(f"(for {user} of {home.name}; it works once, until {expires:%H:%M %Z})")
    if not configured:
        err_console.print(
            "note: LINE is not configured here: the code is answered once `shitsuji serve` runs with "
            "SHITSUJI_LINE_CHANNEL_SECRET and SHITSUJI_LINE_CHANNEL_TOKEN set (README: The LINE channel)",
            soft_wrap=True,
        )


@app.command()
def worker(
    poll: Annotated[float, typer.Option("--poll", help="Seconds between looks at the queue.")] = 1.0,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Events answered at once.")] = 4,
) -> None:
    """Answer stored LINE events and run memory extraction, in this process (use with `serve --no-worker`)."""
    import asyncio

    from ..errors import UserInputError
    from ..line import LineApp

    settings = STATE.settings()
    butler = STATE.butler(need_model=False)
    if settings.line is None:
        raise UserInputError(
            "the LINE channel is not configured: set SHITSUJI_LINE_CHANNEL_SECRET and SHITSUJI_LINE_CHANNEL_TOKEN"
        )
    line = LineApp(butler, settings.line, concurrency=concurrency)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await line.worker.run(stop, poll_s=poll, extraction=True)

    console.print("shitsuji worker: answering LINE events (Ctrl-C stops)")
    try:
        asyncio.run(run())
    finally:
        line.close()
        butler.close()
