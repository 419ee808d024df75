"""``shitsuji chat`` and ``shitsuji proposals``: the household butler in a terminal.

One-shot with ``--message`` (cards are printed; approve them later with ``proposals``),
otherwise an interactive chat that shows each proposal card and asks y/n. The speaker is
the ``--user`` named on the command line, checked against the household's members.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel

from ..agent import (
    AnswerStep,
    Assistant,
    Conversations,
    Proposal,
    Proposals,
    ToolContext,
    check_message,
    decision_note,
    enqueue_exchange,
    extraction_queue,
    untold_decisions,
    with_user_text,
)
from ..context import Segments, Summarizer
from ..household import HouseholdStore, butler, household_toolbox
from ._app import STATE, JsonFlag, app, console, print_json

if TYPE_CHECKING:
    from ..llm import Model
    from ..memory import ExtractionQueue

proposals_app = typer.Typer(
    help="Confirmation cards: list, approve or reject proposed writes.", no_args_is_help=True
)
app.add_typer(proposals_app, name="proposals")

UserOpt = Annotated[str, typer.Option("--user", "-u", help="Who is speaking (a household member).")]
ChannelOpt = Annotated[str, typer.Option("--channel", help="app or line: decides which writes need a card.")]


class Session:
    """What one chat needs, opened from the global settings."""

    def __init__(self, user: str, channel: str, household: str | None, conversation: str | None) -> None:
        db_path = STATE.settings().db
        self.memory = STATE.engine()
        self.store = HouseholdStore(db_path)
        self.proposals = Proposals(db_path)
        self.conversations = Conversations(db_path)
        self.segments = Segments(db_path)
        member = self.store.member_context(user, channel, memory=self.memory, household=household)
        if conversation is None:
            self.conversation = self.conversations.start(user, member.household, channel)
        else:
            self.conversation = self.conversations.get(conversation, user)
        ctx = self.store.member_context(
            user, channel, memory=self.memory, household=member.household, conversation=self.conversation.id
        )
        self.ctx = replace(ctx, services={**ctx.services, "segments": self.segments})
        self.history = list(self.conversation.messages)
        self.told = list(self.conversation.told)
        self.summary = self.conversation.summary
        self.folded_upto = self.conversation.folded_upto

    def label(self, segment: str | None, summarizer: Summarizer | None) -> None:
        """Follow the caller's label: open a segment when it changes, close it with ``none``."""
        current = self.segments.current(self.conversation.id)
        if segment is None:
            self.ctx = replace(self.ctx, segment=current.label if current else None)
        elif segment == "none":
            asyncio.run(
                self.segments.close_segment(self.conversation.id, self.history, summarizer=summarizer)
            )
            self.ctx = replace(self.ctx, segment=None)
        else:
            if current is None or current.label != segment:
                opening = self.segments.open_segment(
                    self.conversation.id, self.ctx.user, segment, self.history, summarizer=summarizer
                )
                asyncio.run(opening)
            self.ctx = replace(self.ctx, segment=segment)

    def pending_notes(self) -> list[str]:
        """What was decided on this conversation's cards since the model last heard."""
        decisions = untold_decisions(self.conversation, self.proposals)
        self.told += [d.proposal.id for d in decisions]
        return [decision_note(d) for d in decisions]

    def keep(self, said: str) -> None:
        """Store the person's words before the model is asked: a failed or interrupted turn loses nothing.

        (After a failure the command ends; the next ``--conversation`` turn sees the words again.)
        """
        self.conversations.save(
            self.conversation,
            with_user_text(self.history, check_message(said)),
            self.told,
            summary=self.summary,
            folded_upto=self.folded_upto,
            segment=self.ctx.segment,
        )

    def save(self, answer: AnswerStep) -> None:
        self.history, self.summary, self.folded_upto = answer.messages, answer.summary, answer.folded_upto
        self.conversations.save(
            self.conversation,
            self.history,
            self.told,
            summary=self.summary,
            folded_upto=self.folded_upto,
            segment=self.ctx.segment,
        )

    def context(self) -> dict[str, Any]:
        return {"summary": self.summary, "folded_upto": self.folded_upto}

    def extraction(self, model: Model) -> ExtractionQueue:
        return extraction_queue(STATE.settings().db, model, self.memory)

    def after_reply(self, queue: ExtractionQueue, said: str, answer: AnswerStep) -> None:
        """Off the reply path: queue this exchange for extraction and run what is due."""
        enqueue_exchange(queue, self.ctx, said, answer)
        asyncio.run(queue.run_due(max_jobs=5))

    def assistant(self) -> Assistant:
        from ..llm import open_model  # the provider SDKs take ~1 s to import: only for chat

        return butler(
            open_model(),
            store=self.store,
            memory=self.memory,
            proposals=self.proposals,
            segments=self.segments,
        )


def _card(p: Proposal) -> Panel:
    return Panel(escape(p.summary), title=f"confirm? {p.id}", subtitle=f"{p.tool} · {p.status}", expand=False)


@app.command()
def chat(
    user: UserOpt,
    channel: ChannelOpt = "app",
    mode: Annotated[
        str | None, typer.Option("--mode", help="Force a mode: chat, info, engineer, task.")
    ] = None,
    message: Annotated[str | None, typer.Option("--message", "-m", help="Say this once and exit.")] = None,
    household: Annotated[
        str | None, typer.Option("--household", help="Household name (default: the user's).")
    ] = None,
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
    session = Session(user, channel, household, conversation)
    bot = session.assistant()
    session.label(segment, bot.summarizer)
    if message is not None:
        said = " ".join([*session.pending_notes(), message])
        session.keep(said)
        used, answer = asyncio.run(
            bot.reply(session.ctx, said, session.history, mode=mode, **session.context())
        )
        session.save(answer)
        queue = session.extraction(bot.model)
        if as_json:
            print_json(
                {
                    "reply": answer.text,
                    "mode": used.name,
                    "proposals": [_proposal_json(p) for p in answer.proposals],
                    "conversation": session.conversation.id,
                }
            )
            session.after_reply(queue, said, answer)
            return
        console.print(answer.text)
        for p in answer.proposals:
            console.print(_card(p))
        if answer.proposals:
            console.print(f"approve with: shitsuji proposals approve ID --user {user}")
        session.after_reply(queue, said, answer)
        return
    _interactive(session, bot, mode)


def _interactive(session: Session, bot: Assistant, mode: str | None) -> None:
    console.print(
        f"[dim]{session.ctx.user} @ {session.ctx.household}, conversation {session.conversation.id} — "
        "empty line or Ctrl-D to leave[/]"
    )
    notes = session.pending_notes()
    queue = session.extraction(bot.model)

    def show(delta: str) -> None:
        console.print(delta, end="", markup=False, highlight=False)

    while True:
        try:
            text = console.input("[bold]> [/]").strip()
        except EOFError:
            return
        if not text:
            return
        said = " ".join([*notes, text])
        session.keep(said)
        _, answer = asyncio.run(
            bot.reply(session.ctx, said, session.history, mode=mode, on_text=show, **session.context())
        )
        notes.clear()
        console.print()
        for p in answer.proposals:
            console.print(_card(p))
            if typer.confirm("approve?", default=False):
                decision = asyncio.run(session.proposals.approve(p.id, session.ctx, bot.toolbox))
            else:
                decision = session.proposals.reject(p.id, session.ctx)
            console.print(f"[dim]{escape(decision.reason)}[/]")
            notes.append(decision_note(decision))
            session.told.append(p.id)
        session.save(answer)
        session.after_reply(queue, said, answer)


def _proposal_json(p: Proposal) -> dict[str, Any]:
    return {"id": p.id, "tool": p.tool, "input": p.input, "summary": p.summary, "status": p.status}


def _member(user: str) -> tuple[HouseholdStore, Proposals, ToolContext]:
    store = HouseholdStore(STATE.settings().db)
    ctx = store.member_context(user, "cli", memory=STATE.engine())
    return store, Proposals(STATE.settings().db), ctx


@proposals_app.command("list")
def proposals_list(
    user: UserOpt,
    every: Annotated[bool, typer.Option("--all", help="Include decided and expired ones.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """The user's pending proposals (all with --all)."""
    _, proposals, ctx = _member(user)
    found = proposals.list(owner=ctx.user, status=None if every else "pending")
    if as_json:
        print_json([p.to_json() for p in found])
        return
    if not found:
        console.print("no pending proposals")
    for p in found:
        console.print(_card(p))


def _decide(verb: str, proposal_id: str, user: str, as_json: bool) -> None:
    _, proposals, ctx = _member(user)
    if verb == "approve":
        decision = asyncio.run(proposals.approve(proposal_id, ctx, household_toolbox()))
    else:
        decision = proposals.reject(proposal_id, ctx)
    if as_json:
        print_json(
            {"done": decision.done, "reason": decision.reason, "proposal": decision.proposal.to_json()}
        )
    else:
        console.print(escape(decision.reason))
    if not decision.done:
        raise typer.Exit(1)


@proposals_app.command()
def approve(
    proposal_id: Annotated[str, typer.Argument(help="Proposal id.")], user: UserOpt, as_json: JsonFlag = False
) -> None:
    """Approve a proposal: its tool runs once, now."""
    _decide("approve", proposal_id, user, as_json)


@proposals_app.command()
def reject(
    proposal_id: Annotated[str, typer.Argument(help="Proposal id.")], user: UserOpt, as_json: JsonFlag = False
) -> None:
    """Reject a proposal: nothing is done."""
    _decide("reject", proposal_id, user, as_json)
