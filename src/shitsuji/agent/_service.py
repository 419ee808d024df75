"""The conversation service: one chat turn, written once, for every channel.

The web app, the terminal, LINE and any worker drive this service and only *display* what
it yields. A turn:

1. ``begin`` checks the words, claims the member's conversation durably — found always by the pair
   (household, user); ``Busy`` while another process answers there — and only then reads it, so a
   turn that ended meanwhile is in what this one reads and writes after;
2. ``events`` follows the segment label the channel passes, stores the person's words
   (with the decisions the model has not heard of yet, as data) before the model is asked,
   runs the assistant, saves its answer and queues memory extraction — yielding typed
   events: ``Started``, ``ModeChosen``, ``TextDelta``, ``ToolsRunning``, ``ProposalMade``,
   ``EffectShown``, then ``Finished`` or ``Failed``. The claim is renewed while the turn runs
   and released at the end, whatever happens.

Every message passes the input filter before anything is stored (size per channel,
personal data blocked or redacted, injection phrases neutralised — which marks the turn
untrusted); every reply passes the output sanitizer, as it streams and as it is stored.
Cards are decided here too (``decide``), so every channel applies the same ownership rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from .._metrics import MODEL_ERRORS, MODEL_TOKENS, TURN_SECONDS
from .._offload import off_loop
from ..context import Segments, Summarizer
from ..errors import ModelError, NotFoundError, ShitsujiError
from ..llm import Block, Message, Usage
from ..safety import InputFilter, StreamSanitizer, sanitize
from ._assistant import Assistant, ContextStep, History, Known, RoutedStep, check_message
from ._claims import Claim, TurnClaims
from ._conversations import Conversation, Conversations, model_messages, untold_decisions
from ._loop import AnswerStep, Mode, ModelStep, ProposalStep, ToolStep
from ._notes import ModelNotes
from ._proposals import Decision, Proposal, Proposals
from ._tools import Toolbox, ToolContext, UiEffect

if TYPE_CHECKING:
    from ..memory import ExtractionQueue

log = logging.getLogger(__name__)


class ModelNotConfigured(ShitsujiError):
    """Chat needs a model endpoint and none is configured."""


class _Keep(Enum):
    KEEP = "keep"


KEEP: Literal[_Keep.KEEP] = _Keep.KEEP  # leave the open segment as it is


@dataclass(frozen=True, slots=True)
class Started:
    conversation: str


@dataclass(frozen=True, slots=True)
class ModeChosen:
    mode: Mode


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolsRunning:
    names: list[str]


@dataclass(frozen=True, slots=True)
class ProposalMade:
    proposal: Proposal


@dataclass(frozen=True, slots=True)
class EffectShown:
    effect: UiEffect


@dataclass(frozen=True, slots=True)
class Finished:
    conversation: str
    text: str
    mode: Mode
    proposals: list[Proposal] = field(default_factory=list)
    wrote: list[str] = field(default_factory=list)  # write tools that ran without a card
    usage: Usage = field(
        default_factory=Usage
    )  # the turn's tokens: plain input, cache reads and writes, output


@dataclass(frozen=True, slots=True)
class Failed:
    """The turn could not finish; the person's words are kept (``kept``) and can be sent again."""

    error: Exception
    kept: bool

    @property
    def message(self) -> str:
        if isinstance(self.error, ShitsujiError):
            return str(self.error)
        return (
            f"the butler failed unexpectedly ({type(self.error).__name__}); your message is kept: try again"
        )


TurnEvent = Started | ModeChosen | TextDelta | ToolsRunning | ProposalMade | EffectShown | Finished | Failed


@dataclass
class Turn:
    """A claimed turn: ``ChatService.begin`` made it, ``ChatService.events`` runs it once."""

    ctx: ToolContext[Any]
    conversation: Conversation
    text: str  # as it may be stored and sent on (checked by the input filter)
    claim: Claim
    segment: str | Literal[_Keep.KEEP] | None = KEEP
    key: str | None = None
    untrusted: bool = False
    said: str = ""  # as the person sent it, for the input filter's optional second opinion
    images: tuple[Block, ...] = ()  # pictures sent with the words: shown to the model this turn, not stored
    released: bool = False  # the claim was let go with the saved answer (in its transaction)
    ready: Ready | Exception | None = (
        None  # ``ChatService.ready``: its blocking start, done (or failed) already
    )
    cards: list[Proposal] | None = None  # the conversation's cards, read with its claim (None: not read)


@dataclass(frozen=True, slots=True)
class Ready:
    """A turn's blocking start, done in the worker thread that claimed it (``ChatService.ready``): the
    words kept, the conversation's cards, the messages as the model reads them, what the prompt knows."""

    ctx: ToolContext[Any]
    conversation: Conversation
    cards: list[Proposal]
    told: list[Message] | None
    known: Known | None


@dataclass
class ChatService:
    """Conversations, turns and cards for verified members, the same on every channel."""

    toolbox: Toolbox
    proposals: Proposals
    conversations: Conversations
    segments: Segments
    claims: TurnClaims
    assistant: Assistant | None = None
    extraction: ExtractionQueue | None = None
    input_filter: InputFilter = field(default_factory=InputFilter)
    no_model: str = "no model endpoint is configured"
    renew_every_s: float = 20.0

    @property
    def notes(self) -> ModelNotes:
        return self.assistant.notes if self.assistant else ModelNotes()

    @property
    def summarizer(self) -> Summarizer | None:
        return self.assistant.summarizer if self.assistant else None

    # -- conversations ------------------------------------------------------

    def conversation(
        self,
        ctx: ToolContext[Any],
        conversation_id: str | None = None,
        *,
        since_fold: bool = False,
        key: str | None = None,
    ) -> Conversation:
        """The member's named conversation, else their latest in this channel, else a new one;
        ``since_fold``, ``key``: a turn's read (``Conversations.get``)."""
        if conversation_id:
            return self.conversations.get(
                conversation_id, ctx.household, ctx.user, since_fold=since_fold, key=key
            )
        latest = self.conversations.latest(
            ctx.household, ctx.user, ctx.channel, since_fold=since_fold, key=key
        )
        return latest or self.conversations.start(ctx.household, ctx.user, ctx.channel)

    async def new_conversation(self, ctx: ToolContext[Any]) -> Conversation:
        """A fresh conversation; the latest one's open segment is archived first."""
        old = await off_loop(self.conversations.latest, ctx.household, ctx.user, ctx.channel)
        if old is not None:
            await self.segments.close_segment(
                old.id, old.messages, summarizer=self.summarizer, untrusted=old.untrusted
            )
        return await off_loop(self.conversations.start, ctx.household, ctx.user, ctx.channel)

    async def follow_segment(
        self, ctx: ToolContext[Any], conversation: Conversation, label: str | None
    ) -> None:
        """Follow the label of what the channel has open: a new label starts a segment, None archives it."""
        current = await off_loop(self.segments.current, conversation.id)
        if (current.label if current else None) == label:
            return
        # a segment archives its messages from wherever it began: a turn's read (from the fold on) won't do
        if conversation.first:
            conversation = await off_loop(self.conversations.get, conversation.id, ctx.household, ctx.user)
        if label is None:
            await self.segments.close_segment(
                conversation.id,
                conversation.messages,
                summarizer=self.summarizer,
                untrusted=conversation.untrusted,
            )
            return
        await self.segments.open_segment(
            conversation.id,
            ctx.household,
            ctx.user,
            label,
            conversation.messages,
            summarizer=self.summarizer,
            untrusted=conversation.untrusted,
        )

    def segment_label(self, conversation_id: str) -> str | None:
        current = self.segments.current(conversation_id)
        return current.label if current else None

    # -- turns ----------------------------------------------------------------

    def begin(
        self,
        ctx: ToolContext[Any] | Callable[[], ToolContext[Any]],
        text: str,
        *,
        conversation: str | None = None,
        segment: str | Literal[_Keep.KEEP] | None = KEEP,
        key: str | None = None,
        untrusted: bool = False,
        images: Sequence[Block] = (),
        start: bool = False,
    ) -> Turn:
        """Check the words and claim the member's conversation for one turn.

        Raises before anything is stored: ``UserInputError`` for empty or oversized words and
        ``InputRejected`` for what the input filter blocks (a card number), ``NotFoundError``
        for a conversation that is not the member's, ``ModelNotConfigured``, and ``Busy``
        while another turn runs there (in any process). ``key`` makes a resend of the same
        message (a retry after a failure) store nothing twice. ``untrusted`` marks words the
        channel knows to be pasted or forwarded: no write runs without a card. ``images`` (checked
        ``image`` blocks) go to the model with the words; text in a picture is outside text, so such a
        turn is untrusted too. ``start``: the turn's start done here too (``ready``: the words kept,
        recall), as a channel that claims in a worker thread does, in that one trip. The trip's
        statements (the claim, the conversation, with ``start`` the words and recall) run on one pooled
        connection (``Database.one_connection``), taken once rather than for each: every channel's
        rule, written here once (docs/benchmarks.md, issue 25: pa27, st28). ``ctx`` may be how to read the
        member's context (LINE: the member's household, checked): read first, on that connection (pg29).
        """
        said = check_message(text)
        with self.conversations.database.one_connection():
            member = ctx if isinstance(ctx, ToolContext) else ctx()
            checked = self.input_filter.check(said, member.channel)
            if self.assistant is None:
                raise ModelNotConfigured(self.no_model)
            claim, found, cards = self._claimed(member, conversation, key)
            untrusted = untrusted or checked.untrusted or bool(images)
            turn = Turn(
                member, found, checked.text, claim, segment, key, untrusted, said, tuple(images), cards=cards
            )
            return self.ready(turn) if start else turn

    def _claimed(
        self, ctx: ToolContext[Any], conversation: str | None, key: str | None
    ) -> tuple[Claim, Conversation, list[Proposal] | None]:
        """The member's conversation claimed with its cards, then read (from the fold on): read before its
        claim, it could be from before the answer of a turn that ended in between, and this turn's words
        would be written where that answer is. Two statements when the conversation is free (the cards
        come with the claim: ``Proposals.after``); a new one is started claimed, with no cards."""
        pick = self.conversations.pick(ctx.household, ctx.user, ctx.channel, conversation)
        holder, taking = self.claims.picking(pick)
        taken = self.proposals.after(taking)
        cards: list[Proposal] | None = None
        if taken is not None:
            claim, cards = Claim(taken[0], holder), taken[1]
        else:  # none yet, not the member's (NotFoundError), held (Busy), or a dead holder's
            found = self.conversations.id_of(ctx.household, ctx.user, ctx.channel, conversation)
            if found is None:
                claim, start = self.claims.taking(self.conversations.new_id())
                started = self.conversations.start(
                    ctx.household, ctx.user, ctx.channel, conversation_id=claim.conversation, also=[start]
                )
                return claim, started, []
            claim = self.claims.claim(found)
        try:
            return (
                claim,
                self.conversations.get(claim.conversation, ctx.household, ctx.user, since_fold=True, key=key),
                cards,
            )
        except BaseException:
            self.claims.release(claim)
            raise

    def ready(self, turn: Turn) -> Turn:
        """``turn`` with its blocking start done here, in the worker thread that claimed it (blocking):
        the words kept, the conversation's cards and messages read, recall. A channel that claims off
        the loop calls it in the same trip, so the turn waits for a worker thread once before the
        model is asked, not four times (``bench web``'s first text). Never raises: a failure to keep
        the words is kept on the turn for ``events`` to report (the claim let go there), and what
        fails after them is read again on the turn's own path. Unchanged when the start must wait
        on the loop (the input filter's judge, a segment to follow)."""
        if turn.ready is not None or turn.segment is not KEEP or self.input_filter.policy.judge is not None:
            return turn
        assert self.assistant is not None  # begin refused the turn without a model
        ctx = replace(turn.ctx, conversation=turn.conversation.id, segment=turn.conversation.open_segment)
        try:
            conversation, cards = self._keep_words(turn, turn.conversation, ctx)
        except Exception as exc:  # reported by events, as its own reading would be
            return replace(turn, ready=exc)
        ctx = replace(ctx, message=f"{conversation.id}:{conversation.size - 1}")
        told: list[Message] | None = None
        known: Known | None = None
        try:
            told = model_messages(conversation, self.proposals, self.notes, cards=cards)
            known = self.assistant.known(ctx, turn.text, cards)
        except Exception:  # read again on the turn's path, which reports a failure
            log.debug("a turn's reads failed in its first trip", exc_info=True)
        return replace(turn, ready=Ready(ctx, conversation, cards, told, known))

    async def events(self, turn: Turn, *, mode: str | None = None) -> AsyncIterator[TurnEvent]:
        """Run a claimed turn; every event is for the channel to display. Ends with Finished or Failed,
        yielded after the claim is released (a channel may stop reading there)."""
        kept = False
        last: Finished | Failed | None = None
        started = time.perf_counter()
        heartbeat = asyncio.create_task(self._renew(turn.claim))
        try:
            turn, ready = await self._started(turn)
            kept = True
            yield Started(ready.conversation.id)
            async for event in self._answer(ready, turn, mode):
                if isinstance(event, Finished):
                    last = event
                    break
                yield event
        except Exception as exc:  # the channel shows it; the words are kept
            if not isinstance(exc, ShitsujiError):
                log.exception("chat turn failed")
            last = Failed(exc, kept)
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            if not turn.released:
                await off_loop(self.claims.release, turn.claim)
        if last is not None:
            _count(turn.ctx.channel, last, time.perf_counter() - started)
            yield last

    async def _started(self, turn: Turn) -> tuple[Turn, Ready]:
        """The turn's start: as ``ready`` did it in the claiming thread, else here (the words kept)."""
        if isinstance(turn.ready, Ready):
            return turn, turn.ready
        if isinstance(turn.ready, Exception):
            raise turn.ready
        conversation = turn.conversation
        if self.input_filter.policy.judge is not None:  # a cheap model's opinion on long or flagged words
            checked = await self.input_filter.check_async(turn.said, turn.ctx.channel)
            turn = replace(turn, text=checked.text, untrusted=turn.untrusted or checked.untrusted)
        if self.input_filter.policy.judge is not None or turn.segment is not KEEP:
            # it waited on the loop: the cards are read again, as they are now
            turn = replace(turn, cards=None)
        if turn.segment is not KEEP:
            await self.follow_segment(turn.ctx, conversation, turn.segment)
            label = await off_loop(self.segment_label, conversation.id)
        else:  # read with the conversation
            label = conversation.open_segment
        ctx = replace(turn.ctx, conversation=conversation.id, segment=label)
        conversation, cards = await off_loop(self._keep_words, turn, conversation, ctx)
        ctx = replace(ctx, message=f"{conversation.id}:{conversation.size - 1}")
        return turn, Ready(ctx, conversation, cards, None, None)

    def _keep_words(
        self, turn: Turn, conversation: Conversation, ctx: ToolContext[Any]
    ) -> tuple[Conversation, list[Proposal]]:
        """Store the person's words (once per key) with the decisions the model has not heard of; and
        the conversation's cards, read once here for the whole turn (its notes and pending cards)."""
        cards = turn.cards if turn.cards is not None else self.proposals.list(conversation=conversation.id)
        if turn.key and turn.key in conversation.keys:
            return conversation, cards  # a resend: the words are stored already and the turn runs on them
        decisions = untold_decisions(conversation, self.proposals, cards=cards)
        return self.conversations.add_said(
            conversation,
            turn.text,
            told=[d.proposal.id for d in decisions],
            untrusted=turn.untrusted,
            segment=ctx.segment,
            key=turn.key,
        ), cards

    async def _answer(self, ready: Ready, turn: Turn, mode: str | None) -> AsyncIterator[TurnEvent]:
        assert self.assistant is not None
        ctx, conversation, cards = ready.ctx, ready.conversation, ready.cards
        text, images = turn.text, turn.images
        told = ready.told
        if told is None:
            told = await off_loop(model_messages, conversation, self.proposals, self.notes, cards=cards)
        history = History(  # from where the conversation was read: the fold, for a turn
            told,
            conversation.untrusted,
            conversation.summary,
            conversation.folded_upto - conversation.first,
            conversation.summary_untrusted,
        )
        queue: asyncio.Queue[TurnEvent | AnswerStep | ContextStep | BaseException | None] = asyncio.Queue()
        clean = StreamSanitizer()  # what streams out is masked as it goes

        def show(delta: str) -> None:
            if out := clean.feed(delta):
                queue.put_nowait(TextDelta(out))

        steps = self.assistant.turn(
            ctx, history, text=text, mode=mode, on_text=show, images=images, cards=cards, known=ready.known
        )
        pump = asyncio.create_task(_drain(steps, queue, clean))
        chosen: Mode | None = None
        kept = ContextStep(conversation.summary, history.folded_upto, conversation.summary_untrusted)
        wrote: list[str] = []
        try:
            while (item := await queue.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, ContextStep):
                    kept = item
                elif isinstance(item, AnswerStep):
                    assert chosen is not None
                    item = _sanitized(item, len(history.messages))
                    await off_loop(self._save, ctx, conversation, history, kept, item, turn)
                    log.info(
                        "turn %s: input %d, cache read %d, cache write %d, output %d tokens",
                        conversation.id,
                        item.usage.input_tokens,
                        item.usage.cache_read_input_tokens,
                        item.usage.cache_creation_input_tokens,
                        item.usage.output_tokens,
                    )
                    yield Finished(conversation.id, item.text, chosen, item.proposals, wrote, item.usage)
                else:
                    if isinstance(item, ModeChosen):
                        chosen = item.mode
                    elif isinstance(item, _Wrote):
                        wrote += item.names
                        continue
                    yield item
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    def _save(
        self,
        ctx: ToolContext[Any],
        conversation: Conversation,
        history: History,
        kept: ContextStep,
        answer: AnswerStep,
        turn: Turn,
    ) -> None:
        """The answer and the context kept, with the turn's claim let go in the same statement (``kept``
        and ``history`` count from where the conversation was read)."""
        new = answer.messages[len(history.messages) :]
        self.conversations.add_turn(
            conversation,
            new,
            untrusted=answer.untrusted,
            summary=kept.summary,
            folded_upto=conversation.first + kept.folded_upto,
            summary_untrusted=kept.summary_untrusted,
            segment=ctx.segment,
            also=[self.claims.releasing(turn.claim)],
        )
        turn.released = True
        tainted = (
            answer.untrusted or kept.summary_untrusted or any(conversation.untrusted[kept.folded_upto :])
        )
        if self.extraction is not None and not tainted:  # outside text never becomes the person's memory
            _enqueue(self.extraction, ctx, conversation, answer)

    async def _renew(self, claim: Claim) -> None:
        while True:
            await asyncio.sleep(self.renew_every_s)
            if not await off_loop(self.claims.renew, claim):
                log.warning("the turn claim on %s was lost", claim.conversation)
                return

    async def catch_up(self, max_jobs: int = 5) -> int:
        """Run due follow-up jobs (memory extraction); channels call it off the reply path."""
        if self.extraction is None:
            return 0
        return len(await self.extraction.run_due(max_jobs=max_jobs))

    # -- cards ----------------------------------------------------------------

    def proposal(self, ctx: ToolContext[Any], proposal_id: str) -> Proposal:
        """The member's own proposal; anyone else's answers exactly like a missing one."""
        try:
            found = self.proposals.get(proposal_id)
        except NotFoundError:
            found = None
        if found is None or found.owner != ctx.user or found.household != ctx.household:
            raise NotFoundError(f"no proposal {proposal_id!r}")
        return found

    def member_proposals(self, ctx: ToolContext[Any], *, pending_only: bool = False) -> list[Proposal]:
        """The member's cards; ``pending_only``: those waiting on them (pending, or interrupted to retry)."""
        status: Literal["pending"] | None = "pending" if pending_only else None
        found = self.proposals.list(household=ctx.household, owner=ctx.user, status=status)
        if pending_only:
            running = self.proposals.list(household=ctx.household, owner=ctx.user, status="running")
            found += [p for p in running if p.interrupted]
        return found

    async def decide(self, ctx: ToolContext[Any], proposal_id: str, *, approve: bool) -> Decision:
        """Approve (the tool runs once, now) or reject a card of the member's; told to the model next turn.
        Approving an ``interrupted`` card (its executor died) retries it: it still runs at most once."""
        found = await off_loop(self.proposal, ctx, proposal_id)
        label = await off_loop(self.segment_label, found.conversation) if found.conversation else None
        where = replace(ctx, conversation=found.conversation, segment=label, message=found.message)
        if approve and found.interrupted:
            return await self.proposals.retry(found.id, where, self.toolbox)
        if approve:
            return await self.proposals.approve(found.id, where, self.toolbox)
        return await off_loop(self.proposals.reject, found.id, where)


def _sanitized(answer: AnswerStep, start: int) -> AnswerStep:
    """The answer with secrets masked in its text and in the words of the turn's new messages."""
    messages = list(answer.messages[:start])
    for message in answer.messages[start:]:
        content = message["content"]
        if isinstance(content, str):
            content = sanitize(content).text
        else:
            content = [
                {**b, "text": sanitize(b["text"]).text} if b.get("type") == "text" else b for b in content
            ]
        messages.append({"role": message["role"], "content": content})
    return replace(answer, text=sanitize(answer.text).text, messages=messages)


@dataclass(frozen=True, slots=True)
class _Wrote:
    names: list[str]


async def _drain(
    steps: AsyncIterator[RoutedStep | ContextStep | Any],
    queue: asyncio.Queue[Any],
    clean: StreamSanitizer,
) -> None:
    """The assistant's steps as events on ``queue`` (text deltas arrive there too), then None.

    Each model response ends its streamed words: what the sanitizer held back is sent before
    the response's tool calls, so a channel shows one message per response."""
    try:
        async for step in steps:
            if isinstance(step, ModelStep):
                _count_tokens(step.response.usage)
                if rest := clean.flush():
                    queue.put_nowait(TextDelta(rest))
            for item in _events_of(step):
                queue.put_nowait(item)
    except BaseException as exc:  # handed to the reader, who raises it
        queue.put_nowait(exc)
        if isinstance(exc, asyncio.CancelledError):
            raise
    finally:
        queue.put_nowait(None)


def _count(channel: str, last: Finished | Failed, seconds: float) -> None:
    """A finished or failed turn in this process's metrics (names only: no words, no ids)."""
    mode = last.mode.name if isinstance(last, Finished) else "none"
    outcome = "answered" if isinstance(last, Finished) else "failed"
    TURN_SECONDS.observe(seconds, channel=channel, mode=mode, outcome=outcome)
    if isinstance(last, Failed) and isinstance(last.error, ModelError):
        MODEL_ERRORS.inc(kind=type(last.error).__name__)


def _count_tokens(usage: Usage) -> None:
    MODEL_TOKENS.inc(usage.input_tokens, kind="input")
    MODEL_TOKENS.inc(usage.output_tokens, kind="output")
    MODEL_TOKENS.inc(usage.cache_read_input_tokens, kind="cache_read")
    MODEL_TOKENS.inc(usage.cache_creation_input_tokens, kind="cache_write")


def _events_of(step: Any) -> Sequence[Any]:
    if isinstance(step, RoutedStep):
        return [ModeChosen(step.mode)]
    if isinstance(step, ModelStep) and step.response.tool_uses:
        return [ToolsRunning([str(b.get("name", "")) for b in step.response.tool_uses])]
    if isinstance(step, ToolStep):
        return [_Wrote(step.wrote), *(EffectShown(e) for e in step.effects)]
    if isinstance(step, ProposalStep):
        return [ProposalMade(p) for p in step.proposals]
    if isinstance(step, ContextStep | AnswerStep):
        return [step]
    return []


def _enqueue(
    queue: ExtractionQueue, ctx: ToolContext[Any], conversation: Conversation, answer: AnswerStep
) -> None:
    """Queue the person's words and the answer (message ids ``conversation:seq``) for extraction."""
    from ..memory import Turn as Said

    said_at = conversation.size - 1  # the row that holds the person's words
    content = conversation.messages[-1]["content"]
    words = content if isinstance(content, str) else str(content[-1].get("text", ""))
    answered_at = conversation.first + len(answer.messages) - 1  # answer.messages: from the read's start
    queue.enqueue(
        [
            Said("user", words, f"{conversation.id}:{said_at}"),
            Said("assistant", answer.text, f"{conversation.id}:{answered_at}"),
        ],
        ctx.scope,
        conversation=conversation.id,
        segment=ctx.segment,
        household=ctx.household,
        channel=ctx.channel,
    )
