"""What the web app does apart from HTTP: the butler's service, per signed-in member, and the live hub.

The chat turn, the cards' rules and the panels' contents are the household butler's
(``Butler``: its conversation service and its panels); this module only wires them to a
signed-in ``Member`` and shapes what the pages show. Every method works inside the
member's household: an id that belongs to another household or another member answers
exactly like a missing one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from .._offload import off_loop
from ..agent import (
    Conversation,
    Decision,
    EffectShown,
    Failed,
    Finished,
    ModeChosen,
    Proposal,
    ProposalMade,
    Started,
    TextDelta,
    ToolContext,
    ToolsRunning,
    Turn,
)
from ..audit import AuditEvent
from ..errors import NotFoundError, ShitsujiError
from ..household import (
    CODE_TTL,
    Applied,
    Butler,
    Household,
    HouseholdDeps,
    LineLinks,
    OpenPanel,
    Panel,
    PanelAction,
    apply,
    check_panel,
    label_of,
    panel_of,
    panel_view,
)
from ..llm import Block, LocalServer
from ..schedule import Reminders
from ..store import Tx
from ._accounts import Accounts
from ._hub import Hub
from ._invites import Invitations
from ._member import Member, message_text, tools_used
from ._memories import MemoryBrowser

CHANNEL = "app"
Emit = Callable[[str, dict[str, Any]], None]


def _title(text: str, width: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _name_of(row: dict[str, Any]) -> str:
    """What a panel row is called: an item's or recipe's name, a title, or an expense's amount and category."""
    if "amount_yen" in row:
        return f"¥{row['amount_yen']:,} {row.get('category', '')}".strip()
    return str(row.get("name") or row.get("title") or "")


class Backend:
    def __init__(self, butler: Butler) -> None:
        self.butler = butler
        self.service = butler.service
        self.store = butler.store
        self.memory = butler.memory
        self.accounts = Accounts(butler.database, audit=butler.audit)
        self.invitations = Invitations(butler.database)
        self.line_links = LineLinks(butler.database)
        self.memories = MemoryBrowser(butler.memory, butler.store, butler.conversations)
        self.hub = Hub()
        self.local_model: LocalServer | None = None  # found by `serve` when no endpoint is set
        self.warm = False  # the app warms up in the background; health tells

        self.reminders = Reminders(butler.database)  # what the scheduler said first, and who wants what

    @property
    def model_ready(self) -> bool:
        return self.service.assistant is not None

    @property
    def model_problem(self) -> str | None:
        return None if self.model_ready else self.service.no_model

    def warm_up(self) -> None:
        """Load at start-up what the first message would otherwise wait for: the embedding model
        (one query), each household's memory indexes, and the tools' schemas."""
        for home in self.store.households():
            self.memory.recall("…", home.scope, k=1)
        for tool in self.butler.toolbox:
            tool.definition()

    def close(self) -> None:
        self.hub.close()
        self.butler.close()
        self.accounts.close()
        self.invitations.close()
        self.line_links.close()
        self.reminders.close()

    def context(self, member: Member, home: Household | None = None) -> ToolContext[HouseholdDeps]:
        """The member's tools' context (``home``: their household as read already this request)."""
        return self.butler.member(member.user, CHANNEL, household=member.household, home=home)

    # -- conversations ----------------------------------------------------

    def conversation(self, member: Member, conversation_id: str | None = None) -> Conversation:
        """The named conversation (the member's own), else their latest, else a new one."""
        try:
            return self.service.conversation(self.context(member), conversation_id)
        except NotFoundError:
            raise NotFoundError(
                f"no conversation {conversation_id!r}: open the chat to continue the latest one"
            ) from None

    def recent_conversations(self, member: Member, limit: int = 10) -> list[dict[str, Any]]:
        """The member's latest web conversations (empty ones left out), titled by their first words."""
        found = self.butler.conversations.recent(member.household, member.user, CHANNEL, limit=limit)
        return [
            {
                "id": c["id"],
                "updated_at": c["updated_at"],
                "messages": c["messages"],
                "title": _title(message_text(c["first"])),
            }
            for c in found
        ]

    async def new_conversation(self, member: Member) -> Conversation:
        return await self.service.new_conversation(await off_loop(self.context, member))

    def timeline(self, member: Member, conversation: Conversation) -> list[dict[str, Any]]:
        """What the chat shows: messages with words (tool traffic folded away), each card where its tool
        call was answered (linked by ``tool_use_id``)."""
        made = [p for p in self.butler.proposals.list(conversation=conversation.id) if p.owner == member.user]
        by_call = {p.tool_use_id: p for p in made if p.tool_use_id}
        unplaced = {p.id: p for p in made}
        items: list[dict[str, Any]] = []
        for row in self.butler.conversations.rows(conversation.id):
            content = json.loads(str(row["content"]))
            text = message_text(content)
            tools = tools_used(content) if row["role"] == "assistant" else []
            for block in content if isinstance(content, list) else []:  # the card answers its call…
                p = by_call.get(block.get("tool_use_id")) if block.get("type") == "tool_result" else None
                if p is not None and unplaced.pop(p.id, None) is not None:
                    items.append({"kind": "card", "proposal": self.card(p)})
            if text or tools:  # …before the person's next words, which share its message
                items.append({"kind": "message", "role": row["role"], "text": text, "tools": tools})
        return items + [{"kind": "card", "proposal": self.card(p)} for p in unplaced.values()]

    def card(self, p: Proposal) -> dict[str, Any]:
        """The proposal as JSON, with its state now and the name of the row its ``id`` argument points to."""
        data = p.to_json()
        data["state"] = self.state(p)
        row = p.input.get("id")
        if isinstance(row, str) and p.household:
            data["subject"] = self.store.title_of(p.household, row, viewer=p.owner)
        return data

    def state(self, p: Proposal) -> str:
        if p.status == "pending" and p.expires_at <= self.butler.proposals.clock():
            return "expired"
        return "interrupted" if p.interrupted else p.status

    # -- turns --------------------------------------------------------------

    def begin(
        self,
        member: Member,
        text: str,
        conversation_id: str | None = None,
        *,
        key: str | None = None,
        images: Sequence[Block] = (),
        start: bool = False,
        home: Household | None = None,
    ) -> Turn:
        """Claim the conversation for a turn: ``Busy`` while one runs there (in any process),
        ``ModelNotConfigured`` without a model, ``UserInputError`` for empty or oversized words.
        ``key`` (one per composed message) stores a resend's words once; ``images`` (checked image
        blocks) go to the model with the words, and make the turn untrusted, as on LINE. ``start``:
        the turn's start done here too (``ChatService.begin(start=True)``: the words kept, the
        conversation read, recall, on one pooled connection), so a turn claimed in a worker thread waits once for a thread, not four times."""
        return self.service.begin(
            self.context(member, home),
            text,
            conversation=conversation_id,
            key=key,
            images=images,
            start=start,
        )

    async def run(self, member: Member, turn: Turn, emit: Emit) -> Finished | Failed:
        """Run a claimed turn, showing each of its events as a server-sent event."""
        async for event in self.service.events(turn):
            if isinstance(event, Started):
                emit("conversation", {"id": event.conversation})
            elif isinstance(event, ModeChosen):
                emit("mode", {"mode": event.mode.name})
            elif isinstance(event, TextDelta):
                emit("text", {"text": event.text})
            elif isinstance(event, ToolsRunning):
                emit("tools", {"names": event.names})
            elif isinstance(event, ProposalMade):
                emit("proposal", await off_loop(self.card, event.proposal))
            elif isinstance(event, EffectShown) and isinstance(event.effect, OpenPanel):
                emit("panel", {"open_panel": event.effect.panel, "label": event.effect.label})
            elif isinstance(event, Finished):
                if event.wrote:
                    await self.hub.bump(member.household)
                emit("done", {"conversation": event.conversation, "text": event.text})
                return event
            elif isinstance(event, Failed):
                known = isinstance(event.error, ShitsujiError)
                emit(
                    "error",
                    {
                        "error": event.message,
                        "kind": type(event.error).__name__ if known else "InternalError",
                    },
                )
                return event
        raise AssertionError("a turn always ends with Finished or Failed")  # pragma: no cover

    async def run_extraction(self) -> int:
        return await self.service.catch_up()

    # -- panels -------------------------------------------------------------

    async def set_panel(self, member: Member, panel: str | None, conversation_id: str | None) -> Panel | None:
        """Open ``panel`` (a segment labelled by it starts) or close whatever is open (None)."""
        ctx = await off_loop(self.context, member)
        conversation = await off_loop(self.conversation, member, conversation_id)
        name = check_panel(panel) if panel is not None else None
        await self.service.follow_segment(ctx, conversation, label_of(name) if name else None)
        return name

    def open_panel(self, conversation: Conversation) -> Panel | None:
        return panel_of(self.service.segment_label(conversation.id))

    def panel(self, member: Member, panel: str, month: str | None = None) -> dict[str, Any]:
        return panel_view(self.store, member.household, check_panel(panel), month, viewer=member.user)

    async def act(self, member: Member, action: PanelAction) -> Applied:
        """A member's own change on a panel (tick, complete, delete, add): no card, it is theirs to make.

        Every panel action of every page and API call passes here, once: record it here.
        The other member's open page hears of it through the hub.
        """
        done = await off_loop(self._apply, member, action)
        if done.changed:
            await self.hub.bump(member.household)
        return done

    def _apply(self, member: Member, action: PanelAction) -> Applied:
        # the change and its audit row commit together (the store's own write is a savepoint in it):
        # a refused audit row undoes the change, and no change is left without its row
        with self.store.database.write() as tx:
            done = apply(self.store, member.household, action, by=member.user)
            if done.changed:
                self._record(member, action, done, tx)
        return done

    def _record(self, member: Member, action: PanelAction, done: Applied, tx: Tx) -> None:
        self.butler.audit.record(
            AuditEvent(
                f"panel.{done.action}",
                actor=member.user,
                household=member.household,
                channel=CHANNEL,
                subject=str(done.row.get("id") or ""),
                # a private row's event is its owner's (the spouse's Activity page leaves it out)
                scope=self.memories.scopes(member)[0] if done.row.get("private") is True else None,
                # the item's name, so the Activity page names it even after it is deleted
                detail={"input": action.model_dump(mode="json"), "name": _name_of(done.row)},
            ),
            tx,
        )

    def fingerprint(self, household: str) -> str:
        """Changes when any of the household's lists changes, or the scheduler says something (also from
        other processes)."""
        data = {**self.store.dump(household), "notified": self.reminders.notifications.latest(household)}
        dump = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(dump.encode()).hexdigest()[:16]

    # -- LINE -----------------------------------------------------------------

    def line_status(self, member: Member) -> bool:
        """Whether a LINE account speaks for the member."""
        return self.line_links.of_member(member.household, member.user) is not None

    def line_code(self, member: Member) -> dict[str, Any]:
        """A one-time code the member sends to the bot from LINE to link their account (10 minutes)."""
        code = self.line_links.new_code(member.household, member.user)
        expires = self.line_links.clock() + CODE_TTL
        return {
            "code": code,
            "expires_at": expires.isoformat(timespec="seconds"),
            "linked": self.line_status(member),
        }

    # -- proposals ----------------------------------------------------------

    def propose(self, member: Member, tool_name: str, arguments: dict[str, Any]) -> Proposal:
        """A card for ``member`` to approve, of one of the butler's write tools (a panel's money
        write: NISA); the arguments are checked as the model's are."""
        found = self.butler.toolbox.get(tool_name)
        if found is None or found.effect != "write":
            raise NotFoundError(f"no write tool named {tool_name!r}")
        return self.butler.proposals.propose(found, arguments, self.context(member))

    def proposal(self, member: Member, proposal_id: str) -> Proposal:
        return self.service.proposal(self.context(member), proposal_id)

    def proposal_list(self, member: Member) -> list[Proposal]:
        return self.service.member_proposals(self.context(member))[::-1]

    def activity(self, member: Member, limit: int = 200) -> list[dict[str, Any]]:
        """The household's audit log as this member may see it (``privacy``'s rule: shared rows and
        their own; the other member's private rows — memories, ``remember`` calls, cards — left out)."""
        found = self.butler.audit.events(viewer=member.viewer, limit=limit)
        return [e.to_json() for e in found]

    async def decide(self, member: Member, proposal_id: str, approve: bool) -> tuple[Decision, Panel | None]:
        """Approve or reject a card; an approved ``open_panel`` opens its panel in the card's conversation."""
        decision = await self.service.decide(
            await off_loop(self.context, member), proposal_id, approve=approve
        )
        opened: Panel | None = None
        for effect in decision.output.effects if decision.output else ():
            if isinstance(effect, OpenPanel) and decision.proposal.conversation:
                opened = await self.set_panel(member, effect.panel, decision.proposal.conversation)
        if decision.done:
            await self.hub.bump(member.household)
        return decision, opened
