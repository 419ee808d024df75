"""``shitsuji chat`` and ``shitsuji proposals``: the household butler in a terminal.

One-shot with ``--message`` (cards are printed; approve them later with ``proposals``),
otherwise an interactive chat that shows each proposal card and asks y/n. The speaker is
the ``--user`` named on the command line, checked against the household's members. The
turn itself is the conversation service's (``Butler.service``): this module only shows
its events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel

from ._app import STATE, JsonFlag, app, console, err_console, print_json

if TYPE_CHECKING:  # imported when a command runs: `shitsuji --help` stays fast
    from ..agent import Finished, Proposal, ToolContext, Turn
    from ..household import Butler, HouseholdDeps

proposals_app = typer.Typer(
    help="Confirmation cards: list, approve or reject proposed writes.", no_args_is_help=True
)
app.add_typer(proposals_app, name="proposals")

UserOpt = Annotated[str, typer.Option("--user", "-u", help="Who is speaking (a household member).")]
ChannelOpt = Annotated[str, typer.Option("--channel", help="app or line: decides which writes need a card.")]
HouseholdOpt = Annotated[
    str | None, typer.Option("--household", help="Household name (default: the user's only one).")
]


def _card(p: Proposal) -> Panel:
    if p.interrupted:  # its executor died before it finished: nothing was written
        body = f"{escape(p.summary)}\ninterrupted: approve it again to retry"
        return Panel(body, title=f"confirm? {p.id}", subtitle=f"{p.tool} · interrupted", expand=False)
    return Panel(escape(p.summary), title=f"confirm? {p.id}", subtitle=f"{p.tool} · {p.status}", expand=False)


async def _run(butler: Butler, turn: Turn, mode: str | None, *, stream: bool) -> Finished:
    """Run one turn, streaming its words when asked; a failure ends the command (the words are kept)."""
    from ..agent import Failed, Finished, TextDelta

    async for event in butler.service.events(turn, mode=mode):
        if isinstance(event, TextDelta) and stream:
            console.print(event.text, end="", markup=False, highlight=False)
        elif isinstance(event, Failed):
            kept = " (your message is kept: continue with --conversation " + turn.conversation.id + ")"
            err_console.print(f"error: {escape(event.message)}" + (kept if event.kept else ""))
            raise typer.Exit(1)
        elif isinstance(event, Finished):
            await butler.service.catch_up()  # memory extraction, off the reply path
            return event
    raise AssertionError("a turn always ends with Finished or Failed")  # pragma: no cover


@app.command()
def chat(
    user: UserOpt,
    channel: ChannelOpt = "app",
    mode: Annotated[
        str | None, typer.Option("--mode", help="Force a mode: chat, info, engineer, task.")
    ] = None,
    message: Annotated[str | None, typer.Option("--message", "-m", help="Say this once and exit.")] = None,
    household: HouseholdOpt = None,
    conversation: Annotated[
        str | None,
        typer.Option("--conversation", help="Continue this conversation (its id from an earlier chat)."),
    ] = None,
    segment: Annotated[
        str | None,
        typer.Option(
            "--segment",
            help="Label of what is open, e.g. household.shopping (starts a segment); none ends it.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Talk to the household butler (one-shot with --message, otherwise interactive)."""
    STATE.require_database()
    import asyncio  # here, not at the top: listing the commands does not pay for the event loop

    from ..agent import KEEP
    from ..context import check_label

    butler = STATE.butler()
    ctx = butler.member(user, channel, household=household)
    label = KEEP if segment is None else None if segment == "none" else check_label(segment)
    started = butler.service.conversation(ctx, conversation) if conversation else None
    conversation_id = (started or butler.conversations.start(ctx.household, ctx.user, channel)).id
    if message is None:
        _interactive(butler, ctx, conversation_id, mode, label)
        return
    turn = butler.service.begin(ctx, message, conversation=conversation_id, segment=label)
    done = asyncio.run(_run(butler, turn, mode, stream=False))
    if as_json:
        print_json(
            {
                "reply": done.text,
                "mode": done.mode.name,
                "proposals": [_proposal_json(p) for p in done.proposals],
                "conversation": done.conversation,
            }
        )
        return
    console.print(done.text)
    for p in done.proposals:
        console.print(_card(p))
    if done.proposals:
        console.print(f"approve with: shitsuji proposals approve ID --user {user}")


def _interactive(
    butler: Butler, ctx: ToolContext[HouseholdDeps], conversation_id: str, mode: str | None, label: Any
) -> None:
    import asyncio

    from ..agent import KEEP

    console.print(
        f"[dim]{ctx.user} @ {ctx.household}, conversation {conversation_id} — empty line or Ctrl-D to leave[/]"
    )
    while True:
        try:
            text = console.input("[bold]> [/]").strip()
        except EOFError:
            return
        if not text:
            return
        turn = butler.service.begin(ctx, text, conversation=conversation_id, segment=label)
        label = KEEP  # followed once, then it stays open
        done = asyncio.run(_run(butler, turn, mode, stream=True))
        console.print()
        for p in done.proposals:
            console.print(_card(p))
            approve = typer.confirm("approve?", default=False)
            decision = asyncio.run(butler.service.decide(ctx, p.id, approve=approve))
            console.print(f"[dim]{escape(decision.reason)}[/]")


def _proposal_json(p: Proposal) -> dict[str, Any]:
    return {"id": p.id, "tool": p.tool, "input": p.input, "summary": p.summary, "status": p.status}


def _member(user: str, household: str | None) -> tuple[Butler, ToolContext[HouseholdDeps]]:
    butler = STATE.butler(need_model=False, model=False)
    return butler, butler.member(user, "cli", household=household)


@proposals_app.command("list")
def proposals_list(
    user: UserOpt,
    household: HouseholdOpt = None,
    every: Annotated[bool, typer.Option("--all", help="Include decided and expired ones.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """The user's pending proposals (all with --all)."""
    STATE.require_database()
    butler, ctx = _member(user, household)
    found = butler.service.member_proposals(ctx, pending_only=not every)
    if as_json:
        print_json([p.to_json() for p in found])
        return
    if not found:
        console.print("no pending proposals")
    for p in found:
        console.print(_card(p))


def _decide(approve: bool, proposal_id: str, user: str, household: str | None, as_json: bool) -> None:
    import asyncio

    butler, ctx = _member(user, household)
    decision = asyncio.run(butler.service.decide(ctx, proposal_id, approve=approve))
    if as_json:
        print_json(
            {"done": decision.done, "reason": decision.reason, "proposal": decision.proposal.to_json()}
        )
    elif decision.done:
        console.print(escape(decision.reason))
    if not decision.done:  # refused (decided already, expired, not yours): an error, on stderr
        if not as_json:
            err_console.print(f"[red]error:[/] {escape(decision.reason)}", soft_wrap=True)
        raise typer.Exit(1)


@proposals_app.command()
def approve(
    proposal_id: Annotated[str, typer.Argument(help="Proposal id.")],
    user: UserOpt,
    household: HouseholdOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Approve a proposal: its tool runs once, now (an interrupted one: retried, still at most once)."""
    STATE.require_database()
    _decide(True, proposal_id, user, household, as_json)


@proposals_app.command()
def reject(
    proposal_id: Annotated[str, typer.Argument(help="Proposal id.")],
    user: UserOpt,
    household: HouseholdOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Reject a proposal: nothing is done."""
    STATE.require_database()
    _decide(False, proposal_id, user, household, as_json)
