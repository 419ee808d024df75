"""One chat turn end to end: check the message, route it, build the prompt, run the loop.

The channel authenticates the speaker and hands over a ``ToolContext``; everything the
model sees about people comes from that context (their scope's memories, their
household's counts), so one spouse's memories never reach the other's request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..context import Calibration, Summarizer, fit, request_estimate
from ..errors import UserInputError
from ..llm import Block, Message, Model, TextSink
from ..memory import Hit
from ._loop import AnswerStep, Mode, ModelStep, Step, run_turn
from ._modes import CHEAP_MODEL, DEFAULT_MODES, mode_named, route
from ._policy import DEFAULT_POLICIES, ChannelPolicy, policy_for
from ._prompt import PERSONA, system_blocks
from ._proposals import Decision, Proposals
from ._tools import Toolbox, ToolContext

MAX_MESSAGE_CHARS = 8000

MemorySource = Callable[[str, ToolContext], Sequence[Hit]]
CountSource = Callable[[ToolContext], str | None]


@dataclass(frozen=True, slots=True)
class RoutedStep:
    """The first step of every turn: which mode answers it."""

    mode: Mode


@dataclass(frozen=True, slots=True)
class ContextStep:
    """The summary this turn used and how much of the history it covers.

    The caller stores both so the next turn starts from there; the stored history is never cut.
    """

    summary: str
    folded_upto: int


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
    memories: MemorySource | None = None
    count_index: CountSource | None = None
    summarizer: Summarizer | None = None
    segment_index: Callable[[ToolContext], Sequence[str]] | None = None
    calibration: Calibration = field(default_factory=Calibration)

    async def turn(
        self,
        ctx: ToolContext,
        message: str,
        history: Sequence[Message] = (),
        *,
        mode: str | None = None,
        on_text: TextSink | None = None,
        summary: str = "",
        folded_upto: int = 0,
    ) -> AsyncIterator[RoutedStep | ContextStep | Step]:
        """Answer ``message`` from ``ctx.user``; yields the mode, the context kept, each loop step, the answer.

        ``history`` is the whole stored conversation; ``summary`` covers ``history[:folded_upto]``.
        The answer carries the whole conversation again (history, the new message, the turn).
        """
        text = check_message(message)
        chosen = (
            mode_named(mode, self.modes)
            if mode
            else await route(self.router or self.model, text, self.modes, router_model=self.router_model)
        )
        yield RoutedStep(chosen)
        conversation = with_user_text(history, text)
        folded = await fit(
            conversation[folded_upto:],
            summary,
            budget_tokens=self.calibration.budget(chosen.window_tokens),
            summarizer=self.summarizer,
        )
        upto = folded_upto + folded.folded + folded.dropped
        yield ContextStep(folded.summary, upto)
        system = system_blocks(
            chosen,
            persona=self.persona,
            count_index=self.count_index(ctx) if self.count_index else None,
            memories=self.memories(text, ctx) if self.memories else (),
            summary=folded.summary,
            pending=self._pending(ctx),
            earlier_segments=self.segment_index(ctx) if self.segment_index and ctx.segment else (),
        )
        steps = run_turn(
            self.model,
            chosen,
            system=system,
            messages=folded.window,
            toolbox=self.toolbox,
            ctx=ctx,
            policy=policy_for(ctx.channel, self.policies),
            proposals=self.proposals,
            on_text=on_text,
        )
        first_round = True
        async for step in steps:
            if isinstance(step, ModelStep) and first_round:  # what the provider counted for this request
                first_round = False
                tools = self.toolbox.definitions() if chosen.max_rounds > 1 else []
                self.calibration.observe(step.response.usage, request_estimate(system, folded.window, tools))
            if isinstance(step, AnswerStep):  # hand back the whole conversation, not just the window
                step = AnswerStep(
                    step.text, conversation[:upto] + step.messages, step.proposals, folded.summary, upto
                )
            yield step

    def _pending(self, ctx: ToolContext) -> list[str]:
        if ctx.conversation is None:
            return []
        return [
            f"{p.id}: {p.summary}"
            for p in self.proposals.list(conversation=ctx.conversation, status="pending")
        ]

    async def reply(
        self,
        ctx: ToolContext,
        message: str,
        history: Sequence[Message] = (),
        *,
        mode: str | None = None,
        on_text: TextSink | None = None,
        summary: str = "",
        folded_upto: int = 0,
    ) -> tuple[Mode, AnswerStep]:
        """The whole turn at once: (mode, answer)."""
        chosen: Mode | None = None
        steps = self.turn(
            ctx, message, history, mode=mode, on_text=on_text, summary=summary, folded_upto=folded_upto
        )
        async for step in steps:
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


def decision_note(decision: Decision) -> str:
    """How an approval or rejection is told to the model on the next turn."""
    p = decision.proposal
    if p.status == "approved":
        return f"[The person approved proposal {p.id} ({p.summary}); result: {p.result}]"
    if p.status == "rejected":
        return f"[The person rejected proposal {p.id} ({p.summary}); it was not done]"
    return f"[Proposal {p.id} ({p.summary}) was not carried out: {decision.reason}]"
