"""One chat turn end to end: check the message, route it, build the prompt, run the loop.

The channel authenticates the speaker and hands over a ``ToolContext``; everything the
model sees about people comes from that context (their scope's memories, their
household's counts), so one spouse's memories never reach the other's request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._offload import off_loop
from ..context import Calibration, Segment, Summarizer, fit, request_estimate
from ..errors import UserInputError
from ..llm import CHEAP_MODEL, Block, Message, Model, TextSink
from ..memory import Hit
from ..safety import find_injections
from ._loop import AnswerStep, Mode, ModelStep, Step, run_turn
from ._modes import DEFAULT_MODES, mode_named, route
from ._notes import ModelNotes
from ._policy import DEFAULT_POLICIES, ChannelPolicy, policy_for
from ._prompt import DEFAULT_MEMORY_BUDGET as MEMORY_BUDGET
from ._prompt import PERSONA, select_memories, system_blocks
from ._proposals import Proposal, Proposals
from ._tools import Toolbox, ToolContext

MAX_MESSAGE_CHARS = 8000

MemorySource = Callable[[str, ToolContext[Any]], Sequence[Hit]]
CountSource = Callable[[ToolContext[Any]], str | None]


@dataclass(frozen=True, slots=True)
class RoutedStep:
    """The first step of every turn: which mode answers it."""

    mode: Mode


@dataclass(frozen=True, slots=True)
class ContextStep:
    """The summary this turn used, how much of the history it covers, and whether it holds untrusted text.

    The caller stores them so the next turn starts from there; the stored history is never cut.
    """

    summary: str
    folded_upto: int
    summary_untrusted: bool = False


@dataclass(frozen=True, slots=True)
class History:
    """A conversation as the model reads it, ending with the person's new message.

    ``untrusted`` flags each message that carries outside text; ``summary`` covers
    ``messages[:folded_upto]`` and ``summary_untrusted`` says whether it was folded from any.
    """

    messages: Sequence[Message]
    untrusted: Sequence[bool] = ()
    summary: str = ""
    folded_upto: int = 0
    summary_untrusted: bool = False

    @classmethod
    def plain(cls, earlier: Sequence[Message], text: str) -> History:
        """Trusted messages plus the person's words (for callers without a conversation store)."""
        messages = with_user_text(earlier, text)
        return cls(messages, [False] * len(messages))


@dataclass(frozen=True, slots=True)
class Known:
    """What a turn's prompt says about the speaker and the household, read in one blocking step."""

    memories: list[Hit]
    earlier: Sequence[Segment]
    counts: str | None
    pending: list[str]


@dataclass
class Assistant:
    model: Model
    toolbox: Toolbox
    proposals: Proposals
    router: Model | None = None
    router_model: str = CHEAP_MODEL
    modes: Mapping[str, Mode] = field(default_factory=lambda: dict(DEFAULT_MODES))
    policies: Mapping[str, ChannelPolicy] = field(default_factory=lambda: dict(DEFAULT_POLICIES))
    persona: str = PERSONA
    notes: ModelNotes = field(default_factory=ModelNotes)
    memories: MemorySource | None = None
    count_index: CountSource | None = None
    # the count index's read sent ahead of recall, to share its round trip (``Database.ahead``; PostgreSQL)
    count_ahead: Callable[[ToolContext[Any]], None] | None = None
    summarizer: Summarizer | None = None
    # the speaker's earlier segments for the prompt: by the open label and where the recalled facts were said
    segment_index: Callable[[ToolContext[Any], Sequence[Hit]], Sequence[Segment]] | None = None
    calibration: Calibration = field(default_factory=Calibration)

    async def turn(
        self,
        ctx: ToolContext[Any],
        history: History,
        *,
        text: str,
        mode: str | None = None,
        on_text: TextSink | None = None,
        images: Sequence[Block] = (),
        cards: Sequence[Proposal] | None = None,
        known: Known | None = None,
    ) -> AsyncIterator[RoutedStep | ContextStep | Step]:
        """Answer the person's words ``text`` (the last message of ``history``) from ``ctx``'s speaker.

        Yields the mode, the context kept, each loop step, and the answer, which carries the
        whole conversation again (history and the turn's new messages). Writes need a card
        while any untrusted text is in what the model sees: the window or the summary. ``cards``:
        the conversation's proposals as the caller read them this turn (else read here); ``known``:
        ``self.known(ctx, text, cards)`` as the caller read it in a worker thread already (else read here).
        """
        chosen = (
            mode_named(mode, self.modes)
            if mode
            else await route(self.router or self.model, text, self.modes, router_model=self.router_model)
        )
        yield RoutedStep(chosen)
        conversation = list(history.messages)
        untrusted = list(history.untrusted) + [False] * (len(conversation) - len(history.untrusted))
        start = history.folded_upto
        folded = await fit(
            conversation[start:],
            history.summary,
            budget_tokens=self.calibration.budget(chosen.window_tokens),
            summarizer=self.summarizer,
            refill=chosen.window_refill,
        )
        upto = start + folded.folded + folded.dropped
        summary_untrusted = history.summary_untrusted or any(untrusted[start : start + folded.folded])
        yield ContextStep(folded.summary, upto, summary_untrusted)
        if known is None:  # recall embeds and reads: never on the loop
            known = await off_loop(self.known, ctx, text, cards)
        memories, earlier = known.memories, known.earlier
        system = system_blocks(
            chosen,
            persona=self.persona,
            count_index=known.counts,
            memories=memories,
            summary=folded.summary,
            pending=known.pending,
            earlier_segments=[s.index_line() for s in earlier],
        )
        # outside text anywhere the model can see — the window, the summary, an earlier segment, or
        # a remembered fact that reads like an injection — and no write runs without a card
        tainted = (
            summary_untrusted
            or any(untrusted[upto:])
            or any(s.untrusted for s in earlier)
            or any(find_injections(h.excerpt) for h in memories)
        )
        steps = run_turn(
            self.model,
            chosen,
            system=system,
            messages=_with_images(folded.window, images),
            toolbox=self.toolbox,
            ctx=ctx,
            policy=policy_for(ctx.channel, self.policies),
            proposals=self.proposals,
            on_text=on_text,
            notes=self.notes,
            tainted=tainted,
        )
        first_round = True
        async for step in steps:
            if isinstance(step, ModelStep) and first_round:  # what the provider counted for this request
                first_round = False
                tools = self.toolbox.definitions_tokens if chosen.max_rounds > 1 else 0
                self.calibration.observe(step.response.usage, request_estimate(system, folded.window, tools))
            if isinstance(step, AnswerStep):  # hand back the whole conversation, not just the window
                step = replace(step, messages=conversation[:upto] + step.messages, summary=folded.summary)
                step = replace(step, folded_upto=upto)
            yield step

    def known(self, ctx: ToolContext[Any], text: str, cards: Sequence[Proposal] | None = None) -> Known:
        """What the prompt says about the speaker and the household (blocking: recall, counts, cards).

        The earlier segments are read while a segment is open: its label's and those the facts the
        prompt shows were said in (their provenance), in the one statement the label's took. The count
        index's read is sent ahead: on PostgreSQL it goes in recall's first round trip."""
        if self.count_index and self.count_ahead:
            self.count_ahead(ctx)
        memories = select_memories(self.memories(text, ctx), MEMORY_BUDGET) if self.memories else []
        return Known(
            memories,
            self.segment_index(ctx, memories) if self.segment_index and ctx.segment else (),
            self.count_index(ctx) if self.count_index else None,
            self._pending(ctx, cards),
        )

    def _pending(self, ctx: ToolContext[Any], cards: Sequence[Proposal] | None) -> list[str]:
        if ctx.conversation is None:
            return []
        if cards is None:
            cards = self.proposals.list(conversation=ctx.conversation, status="pending")
        return [f"{p.id}: {p.summary}" for p in cards if p.status == "pending"]

    async def reply(
        self,
        ctx: ToolContext[Any],
        message: str,
        history: Sequence[Message] = (),
        *,
        mode: str | None = None,
        on_text: TextSink | None = None,
    ) -> tuple[Mode, AnswerStep]:
        """The whole turn at once, for callers that keep no conversation store: (mode, answer)."""
        text = check_message(message)
        chosen: Mode | None = None
        async for step in self.turn(ctx, History.plain(history, text), text=text, mode=mode, on_text=on_text):
            if isinstance(step, RoutedStep):
                chosen = step.mode
            elif isinstance(step, AnswerStep):
                assert chosen is not None
                return chosen, step
        raise AssertionError("a turn always ends with an answer")  # pragma: no cover


def check_message(message: str) -> str:
    text = message.strip()
    if not text:
        raise UserInputError("the message is empty: say something to the butler")
    if len(text) > MAX_MESSAGE_CHARS:
        raise UserInputError(
            f"the message is {len(text):,} characters; the limit is {MAX_MESSAGE_CHARS:,}: send it in parts"
        )
    return text


def with_user_text(history: Sequence[Message], text: str) -> list[Message]:
    """History plus a user text; merged into a trailing user message (e.g. pending tool results)."""
    out = list(history)
    block: Block = {"type": "text", "text": text}
    if out and out[-1]["role"] == "user":
        content = out[-1]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        out[-1] = {"role": "user", "content": [*blocks, block]}
    else:
        out.append({"role": "user", "content": text})
    return out


def _with_images(window: list[Message], images: Sequence[Block]) -> list[Message]:
    """The window with this turn's pictures before the person's words (a copy: they are not stored)."""
    if not images or not window:
        return window
    last = window[-1]
    words = last["content"]
    blocks = [{"type": "text", "text": words}] if isinstance(words, str) else list(words)
    return [*window[:-1], {**last, "content": [*images, *blocks]}]
