"""What the web app does, apart from HTTP: one object over the stores, the model and the live hub.

Every method takes the signed-in ``Member`` and works inside their household: an id that
belongs to another household or another member answers exactly like a missing one.
Everything runs on the server's event loop (SQLite calls are short), so two requests never
interleave inside a write; a conversation takes one turn at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..agent import (
    AnswerStep,
    Assistant,
    Conversation,
    Conversations,
    Decision,
    ModelStep,
    Proposal,
    Proposals,
    ProposalStep,
    RoutedStep,
    ToolContext,
    decision_note,
    enqueue_exchange,
    extraction_queue,
    open_panel,
    untold_decisions,
    with_user_text,
)
from ..agent._segment_tools import PANELS
from ..context import Segments, Summarizer
from ..errors import NotFoundError, ShitsujiError, UserInputError
from ..household import HouseholdStore, butler, butler_toolbox
from ..llm import Model
from ..memory import ExtractionQueue, Memory, MemoryEngine
from ._accounts import Accounts

log = logging.getLogger(__name__)

CHANNEL = "app"
Panel = Literal["shopping", "calendar", "todos", "budget"]
Emit = Callable[[str, dict[str, Any]], None]
_PROPOSAL_ID = re.compile(r"\bp_[0-9a-f]{12}\b")
_NOTE = re.compile(r"^(\[(?:The person (?:approved|rejected)|Proposal) [^\n]*?\]\s*)+")


class ModelNotConfigured(ShitsujiError):
    """Chat needs a model endpoint and none is configured."""


class Busy(ShitsujiError):
    """The conversation is still answering a previous message."""


@dataclass(frozen=True, slots=True)
class Member:
    household: str
    user: str
    csrf: str = ""


def _title(text: str, width: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def check_panel(name: str) -> Panel:
    if name not in PANELS:
        raise UserInputError(f"no panel {name!r}: choose one of {', '.join(PANELS)}")
    panel: Panel = name  # type: ignore[assignment]
    return panel


def label_of(panel: str) -> str:
    return f"household.{panel}"


def panel_of(label: str | None) -> Panel | None:
    if label and label.startswith("household.") and label[10:] in PANELS:
        return check_panel(label[10:])
    return None


def message_text(content: Any) -> str:
    """The words of a stored message (text blocks only), without decision notes meant for the model."""
    if isinstance(content, str):
        text = content
    else:
        text = "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return _NOTE.sub("", text).strip()


def tools_used(content: Any) -> list[str]:
    if isinstance(content, str):
        return []
    return [b["name"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


@dataclass
class Hub:
    """Change counters per household; streams wait on them for live panel updates."""

    versions: dict[str, int] = field(default_factory=dict)
    _changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def bump(self, household: str) -> None:
        condition = self._condition()
        async with condition:
            self.versions[household] = self.versions.get(household, 0) + 1
            condition.notify_all()

    async def wait(self, household: str, seen: int, timeout: float) -> int:
        condition = self._condition()
        async with condition:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    condition.wait_for(lambda: self.versions.get(household, 0) != seen), timeout
                )
            return self.versions.get(household, 0)


class Backend:
    def __init__(
        self,
        db_path: str | Path,
        memory: MemoryEngine,
        model: Model | None,
        *,
        model_problem: str | None = None,
        extraction: bool = True,
    ) -> None:
        self.db_path = str(db_path)
        self.memory = memory
        self.model = model
        self.model_problem = model_problem if model is None else None
        self.store = HouseholdStore(self.db_path)
        self.proposals = Proposals(self.db_path)
        self.conversations = Conversations(self.db_path)
        self.segments = Segments(self.db_path)
        self.accounts = Accounts(self.db_path)
        self.hub = Hub()
        self._busy: set[str] = set()
        self.assistant: Assistant | None = None
        self.queue: ExtractionQueue | None = None
        self.summarizer: Summarizer | None = None
        if model is not None:
            self.assistant = butler(
                model,
                store=self.store,
                memory=memory,
                proposals=self.proposals,
                segments=self.segments,
                extra_tools=[open_panel],
            )
            self.summarizer = self.assistant.summarizer
            if extraction:
                self.queue = extraction_queue(self.db_path, model, memory)
        # without a model the tools still decide cards (approve runs them)
        self.toolbox = self.assistant.toolbox if self.assistant else butler_toolbox([open_panel])

    def close(self) -> None:
        for part in (self.store, self.proposals, self.conversations, self.segments, self.accounts):
            part.close()
        if self.queue is not None:
            self.queue.close()

    # -- who --------------------------------------------------------------

    def context(
        self,
        member: Member,
        conversation: str | None = None,
        *,
        ui_events: list[dict[str, Any]] | None = None,
    ) -> ToolContext:
        ctx = self.store.member_context(
            member.user, CHANNEL, memory=self.memory, household=member.household, conversation=conversation
        )
        segment = self.segments.current(conversation) if conversation else None
        services: dict[str, Any] = {**ctx.services, "segments": self.segments}
        if ui_events is not None:
            services["ui_events"] = ui_events
        return replace(ctx, segment=segment.label if segment else None, services=services)

    def scopes(self, member: Member) -> tuple[str, str]:
        """(own scope, shared household scope): the only memory scopes a member sees."""
        home = self.store.get(member.household)
        return home.member_scope(member.user), home.scope

    # -- conversations ----------------------------------------------------

    def conversation(self, member: Member, conversation_id: str | None = None) -> Conversation:
        """The named conversation (the member's own), else their latest, else a new one."""
        if conversation_id:
            found = self._own_conversation(member, conversation_id)
            if found is None:
                raise NotFoundError(
                    f"no conversation {conversation_id!r}: open the chat to continue the latest one"
                )
            return found
        latest = self.conversations.latest(member.user, member.household, CHANNEL)
        return latest or self.conversations.start(member.user, member.household, CHANNEL)

    def _is_write(self, tool_name: str) -> bool:
        found = self.toolbox.get(tool_name)
        return found is not None and found.effect == "write"

    def _own_conversation(self, member: Member, conversation_id: str) -> Conversation | None:
        try:
            found = self.conversations.get(conversation_id, member.user)
        except NotFoundError:
            return None
        return found if found.household == member.household else None

    def recent_conversations(self, member: Member, limit: int = 10) -> list[dict[str, Any]]:
        """The member's latest web conversations (empty ones left out), titled by their first words."""
        found = self.conversations.recent(member.user, member.household, CHANNEL, limit=limit)
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
        old = self.conversations.latest(member.user, member.household, CHANNEL)
        if old is not None and self.segments.current(old.id) is not None:
            await self.segments.close_segment(old.id, old.messages, summarizer=self.summarizer)
        return self.conversations.start(member.user, member.household, CHANNEL)

    def timeline(self, member: Member, conversation: Conversation) -> list[dict[str, Any]]:
        """What the chat shows: messages with words (tool traffic folded away), each card where it was made."""
        cards = {
            p.id: {"kind": "card", "proposal": self.card(p)}
            for p in self.proposals.list(conversation=conversation.id)
            if p.owner == member.user
        }
        items: list[dict[str, Any]] = []
        for row in self.conversations.rows(conversation.id):
            content = json.loads(str(row["content"]))
            text = message_text(content)
            tools = tools_used(content) if row["role"] == "assistant" else []
            if text or tools:
                items.append({"kind": "message", "role": row["role"], "text": text, "tools": tools})
            if row["role"] == "user" and not isinstance(content, str):  # tool results name their proposals
                for proposal_id in _PROPOSAL_ID.findall(str(row["content"])):
                    if proposal_id in cards:
                        items.append(cards.pop(proposal_id))
        return items + list(cards.values())

    def card(self, p: Proposal) -> dict[str, Any]:
        data = p.to_json()
        data["state"] = self.state(p)
        return data

    def state(self, p: Proposal) -> str:
        if p.status == "pending" and p.expires_at <= self.proposals.clock():
            return "expired"
        return p.status

    async def chat(
        self, member: Member, message: str, emit: Emit, *, conversation_id: str | None = None
    ) -> AnswerStep:
        """One turn: events go to ``emit`` as they happen; the conversation is saved whatever happens."""
        conversation = self.claim(member, conversation_id)
        return await self.answer(member, conversation, message, emit)

    def claim(self, member: Member, conversation_id: str | None = None) -> Conversation:
        """The conversation, reserved for one turn (``Busy`` while another runs); ``answer`` frees it.

        Synchronous, so two messages arriving together cannot both pass the check. Without a
        model there is nothing to claim for: ``ModelNotConfigured`` says how to configure one.
        """
        if self.assistant is None:
            raise ModelNotConfigured(self.model_problem or "no model endpoint is configured")
        conversation = self.conversation(member, conversation_id)
        if conversation.id in self._busy:
            raise Busy("the butler is still answering your previous message: wait for it to finish")
        self._busy.add(conversation.id)
        return conversation

    async def answer(
        self, member: Member, conversation: Conversation, message: str, emit: Emit
    ) -> AnswerStep:
        """One turn in a conversation ``claim`` reserved; it is free again afterwards, whatever happens."""
        try:
            return await self._chat(member, conversation, message, emit)
        finally:
            self._busy.discard(conversation.id)

    async def _chat(self, member: Member, conversation: Conversation, message: str, emit: Emit) -> AnswerStep:
        assert self.assistant is not None
        ui_events: list[dict[str, Any]] = []
        ctx = self.context(member, conversation.id, ui_events=ui_events)
        decisions = untold_decisions(conversation, self.proposals)
        said = "\n".join([*(decision_note(d) for d in decisions), message])
        told = [*conversation.told, *(d.proposal.id for d in decisions)]
        # stored before the model is asked: a dead model, a bug or a crash loses nothing
        self.conversations.save(
            conversation,
            with_user_text(conversation.messages, said),
            told,
            summary=conversation.summary,
            folded_upto=conversation.folded_upto,
            segment=ctx.segment,
        )
        emit("conversation", {"id": conversation.id})
        wrote = False
        steps = self.assistant.turn(
            ctx,
            said,
            conversation.messages,
            on_text=lambda delta: emit("text", {"text": delta}),
            summary=conversation.summary,
            folded_upto=conversation.folded_upto,
        )
        async for step in steps:
            if isinstance(step, RoutedStep):
                emit("mode", {"mode": step.mode.name})
            elif isinstance(step, ModelStep) and step.response.tool_uses:
                names = [str(b.get("name", "")) for b in step.response.tool_uses]
                emit("tools", {"names": names})
                # a write may have run (or become a card): the live panels re-check the household
                wrote = wrote or any(self._is_write(name) for name in names)
            elif isinstance(step, ProposalStep):
                for p in step.proposals:
                    emit("proposal", self.card(p))
            elif isinstance(step, AnswerStep):
                self.conversations.save(
                    conversation,
                    step.messages,
                    told,
                    summary=step.summary,
                    folded_upto=step.folded_upto,
                    segment=ctx.segment,
                )
                for event in ui_events:
                    emit("panel", event)
                if wrote:
                    await self.hub.bump(member.household)
                if self.queue is not None:
                    enqueue_exchange(self.queue, ctx, said, step)
                emit("done", {"conversation": conversation.id, "text": step.text})
                return step
        raise AssertionError("a turn always ends with an answer")  # pragma: no cover

    async def run_extraction(self) -> int:
        if self.queue is None:
            return 0
        return len(await self.queue.run_due(max_jobs=5))

    # -- panels -----------------------------------------------------------

    async def set_panel(self, member: Member, panel: str | None, conversation_id: str | None) -> Panel | None:
        """Open ``panel`` (a segment labelled by it starts) or close whatever is open (None)."""
        conversation = self.conversation(member, conversation_id)
        if panel is None:
            await self.segments.close_segment(
                conversation.id, conversation.messages, summarizer=self.summarizer
            )
            return None
        name = check_panel(panel)
        current = self.segments.current(conversation.id)
        if current is None or current.label != label_of(name):
            await self.segments.open_segment(
                conversation.id,
                member.user,
                label_of(name),
                conversation.messages,
                summarizer=self.summarizer,
            )
        return name

    def open_panel(self, conversation: Conversation) -> Panel | None:
        segment = self.segments.current(conversation.id)
        return panel_of(segment.label if segment else None)

    def panel(self, member: Member, panel: str, month: str | None = None) -> dict[str, Any]:
        name = check_panel(panel)
        store, home = self.store, member.household
        today = store.today()
        if name == "shopping":
            return {"panel": name, "items": [i.to_json() for i in store.shopping_items(home)]}
        if name == "calendar":
            return {"panel": name, "events": [e.to_json() for e in store.events(home, today, None)]}
        if name == "todos":
            return {"panel": name, "todos": [t.to_json() for t in store.todos(home)]}
        try:
            rows = [x.to_json() for x in store.expenses(home, month)]
        except OverflowError:  # 9999-12 has no following month to bound the range
            raise UserInputError(f"month {month!r} is out of range: use a month before 9999-12") from None
        by_category: dict[str, int] = {}
        for row in rows:
            by_category[row["category"]] = by_category.get(row["category"], 0) + row["amount_yen"]
        return {
            "panel": name,
            "month": month or today.strftime("%Y-%m"),
            "expenses": rows,
            "total_yen": sum(r["amount_yen"] for r in rows),
            "by_category": dict(sorted(by_category.items(), key=lambda kv: -kv[1])),
        }

    def fingerprint(self, household: str) -> str:
        """Changes when any of the household's lists changes (also from other processes)."""
        dump = json.dumps(self.store.dump(household), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(dump.encode()).hexdigest()[:16]

    # -- proposals --------------------------------------------------------

    def proposal(self, member: Member, proposal_id: str) -> Proposal:
        try:
            found = self.proposals.get(proposal_id)
        except NotFoundError:
            found = None
        if found is None or found.owner != member.user or found.household != member.household:
            raise NotFoundError(f"no proposal {proposal_id!r}")
        return found

    def proposal_list(self, member: Member) -> list[Proposal]:
        found = self.proposals.list(owner=member.user)
        return [p for p in found if p.household == member.household][::-1]

    async def decide(self, member: Member, proposal_id: str, approve: bool) -> Decision:
        proposal = self.proposal(member, proposal_id)
        ctx = self.context(member, proposal.conversation)
        if approve:
            decision = await self.proposals.approve(proposal.id, ctx, self.toolbox)
        else:
            decision = self.proposals.reject(proposal.id, ctx)
        if decision.done:
            await self.hub.bump(member.household)
        return decision

    # -- memories ---------------------------------------------------------

    def visible(self, member: Member, memory: Memory) -> bool:
        return memory.scope in self.scopes(member)

    def memory_of(self, member: Member, memory_id: str) -> Memory:
        try:
            found = self.memory.get(memory_id)
        except NotFoundError:
            found = None
        if found is None or not self.visible(member, found):
            raise NotFoundError(f"no memory {memory_id!r}")
        return found

    def memories(
        self,
        member: Member,
        *,
        query: str | None = None,
        category: str | None = None,
        scope: Literal["own", "shared", "all"] = "all",
        deleted: bool = False,
        limit: int = 200,
    ) -> list[dict[str, Any]]:
        """Visible memories as JSON, newest first; with ``query``, the recall ranking (same hybrid search)."""
        own, shared = self.scopes(member)
        wanted = {"own": (own,), "shared": (shared,), "all": (own, shared)}[scope]
        if query and query.strip() and not deleted:
            hits = self.memory.recall(query, own, k=max(limit, 1))
            return [
                memory_json(h.memory, shared, round(h.score, 4))
                for h in hits
                if h.memory.scope in wanted and (category is None or h.memory.category == category)
            ]
        found: list[Memory] = []
        for where in wanted:
            found += [
                m
                for m in self.memory.list_memories(where, deleted=deleted)
                if m.scope == where and (category is None or m.category == category)
            ]
        found.sort(key=lambda m: m.updated_at, reverse=True)
        return [memory_json(m, shared) for m in found[:limit]]

    def memory_view(self, member: Member, memory: Memory) -> dict[str, Any]:
        """One memory as JSON, marked shared when it is the household's."""
        return memory_json(memory, self.scopes(member)[1])

    def categories(self, member: Member) -> list[str]:
        own, shared = self.scopes(member)
        names = {
            m.category
            for where in (own, shared)
            for m in self.memory.list_memories(where)
            if m.scope == where
        }
        return sorted(names)

    def provenance(self, member: Member, memory: Memory) -> dict[str, Any]:
        """Where a memory came from, with the words of the messages it was taken from (if the member's)."""
        origin = dict(memory.provenance)
        quoted: list[dict[str, Any]] = []
        conversation = origin.get("conversation")
        ids = origin.get("message_ids") or []
        if not isinstance(conversation, str) or self._own_conversation(member, conversation) is None:
            return {"provenance": origin, "messages": quoted}
        rows = {int(str(r["seq"])): r for r in self.conversations.rows(conversation)}
        for ident in ids if isinstance(ids, list) else []:
            _, _, seq = str(ident).rpartition(":")
            row = rows.get(int(seq)) if seq.isdigit() else None
            if row is not None:
                quoted.append(
                    {
                        "id": ident,
                        "role": row["role"],
                        "at": row["created_at"],
                        "text": message_text(json.loads(str(row["content"]))),
                    }
                )
        return {"provenance": origin, "messages": quoted}

    def edit_memory(
        self,
        member: Member,
        memory_id: str,
        *,
        content: str | None,
        category: str | None,
        importance: float | None,
    ) -> Memory:
        old = self.memory_of(member, memory_id)
        return self.memory.edit(
            old.id, content=content, category=category, importance=importance, by=member.user
        )

    def forget_memory(self, member: Member, memory_id: str) -> Memory:
        return self.memory.forget(self.memory_of(member, memory_id).id)

    def restore_memory(self, member: Member, memory_id: str) -> Memory:
        return self.memory.restore(self.memory_of(member, memory_id).id)


def memory_json(memory: Memory, shared_scope: str, score: float | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": memory.id,
        "content": memory.content,
        "category": memory.category,
        "importance": memory.importance,
        "source": memory.source,
        "scope": memory.scope,
        "shared": memory.scope == shared_scope,
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "deleted": memory.deleted_at is not None,
    }
    if score is not None:
        data["score"] = score
    return data
