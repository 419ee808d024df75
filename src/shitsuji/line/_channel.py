"""One LINE event, answered: who is speaking, and what the butler's conversation service says back.

This is the channel and nothing more. The sender's LINE user id becomes a household
member only through a link (``LineLinks``); an unlinked sender gets one polite line in a
one-to-one chat (and silence in a group) and nothing they send reaches the model, the
conversation store or memory. A linked member's text drives ``ChatService`` — the same
turn as on the web, with the ``line`` channel's policy — and a tapped card button is
decided with ``ChatService.decide``, which applies the owner rule. What comes back is a
list of LINE messages for the worker to send; this module sends nothing itself except
the loading animation.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from linebot.v3.webhooks import (
    Event,
    FollowEvent,
    ImageMessageContent,
    JoinEvent,
    MessageEvent,
    PostbackEvent,
    StickerMessageContent,
    TextMessageContent,
    UserSource,
)
from pydantic.v1 import ValidationError

from .._offload import off_loop
from ..agent import (
    Decision,
    EffectShown,
    Failed,
    Finished,
    ModelNotConfigured,
    ProposalMade,
    ToolContext,
    Turn,
    UiEffect,
)
from ..audit import AuditEvent
from ..errors import NotFoundError, UserInputError
from ..household import Butler, HouseholdDeps
from ..household._line_links import RESET_TTL, LineLinks, Link, TooManyCodes, looks_like_code
from ..llm import CONSERVATIVE, Block, ImageRefused, image_block
from ..safety import InputRejected
from ._content import ContentUnavailable, LineContent
from ._pasted import looks_pasted
from ._render import card, effect_messages, parse_tap, text_messages
from ._words import Lang, asks_password_reset, language_of, say

__all__ = ["CHANNEL", "LineChannel", "Loading"]

log = logging.getLogger(__name__)

CHANNEL = "line"
Loading = Callable[[str], Awaitable[None]]
Messages = list[dict[str, Any]]


def _text(lang: Lang, key: str, **values: object) -> Messages:
    return text_messages(say(lang, key, **values))


class LineChannel:
    """Turns a raw webhook event into the LINE messages that answer it (an empty list: say nothing)."""

    def __init__(
        self, butler: Butler, links: LineLinks, secret: str, content: LineContent | None = None
    ) -> None:
        self.butler = butler
        self.service = butler.service
        self.links = links
        self.secret = secret
        self.content = content  # fetches pictures; without it a picture gets the "not text" line

    async def handle(self, raw: dict[str, Any], *, key: str, loading: Loading) -> Messages:
        """Answer one event; ``key`` (its webhook event id) makes a retried turn store the words once."""
        try:
            event = Event.from_dict(raw)
        except (
            ValueError,
            ValidationError,
            TypeError,
            KeyError,
            AttributeError,
        ) as exc:  # unknown or malformed
            log.info("LINE event %s skipped: %s", raw.get("type"), str(exc)[:200])
            return []
        user: str | None = getattr(event.source, "user_id", None)
        private = isinstance(event.source, UserSource)
        link = await off_loop(self.links.get, user) if user else None
        if isinstance(event, MessageEvent):
            return await self._message(event, user, link, private, key, loading)
        if isinstance(event, PostbackEvent):
            if link is None:
                return _text("ja", "not_linked") if private else []
            return await self._tap(event.postback.data, link)
        if isinstance(event, FollowEvent):
            lang = link.lang if link else "ja"
            return _text(lang, "follow") + ([] if link else _text(lang, "not_linked"))
        if isinstance(event, JoinEvent):
            return _text("ja", "join")
        return []  # unfollow, leave, member joined/left …: nothing to say (a link outlives a block)

    async def _message(
        self,
        event: MessageEvent,
        user: str | None,
        link: Link | None,
        private: bool,
        key: str,
        loading: Loading,
    ) -> Messages:
        content = event.message
        text = content.text if isinstance(content, TextMessageContent) else None
        code = looks_like_code(text) if text else None
        if link is not None and text and "-" not in text:
            code = None  # a linked member's "tomorrow" is a word; only ABCD-EFGH relinks them
        known: Lang = link.lang if link else "ja"
        lang: Lang = (language_of(text) if text and code is None else None) or known
        if user is None:
            return []
        if code is not None:
            if not private:
                return _text(lang, "link_in_private") if link else []
            return await off_loop(self._link, user, code, lang)
        if link is None:  # nothing from an unknown sender goes further than this line
            return _text(lang, "not_linked") if private else []
        if isinstance(content, ImageMessageContent) and self.content is not None:
            return await self._picture(link, content.id, lang, key, loading if private else None)
        if text is None:
            return _text(lang, "sticker" if isinstance(content, StickerMessageContent) else "not_text")
        if lang != link.lang:
            await off_loop(self.links.set_lang, user, lang)
        if asks_password_reset(text):
            return await off_loop(self._reset_code, link, lang, private)
        return await self._turn(link, text, lang, key, loading if private else None)

    def _audit(self, action: str, link: Link, **detail: str) -> None:
        """Account events are the member's own: their private scope, not the household's."""
        home = self.butler.store.get(link.household)
        self.butler.audit.record(
            AuditEvent(
                action,
                actor=link.member,
                household=link.household,
                channel=CHANNEL,
                scope=home.member_scope(link.member),
                detail=detail,
            )
        )

    def _link(self, user: str, code: str, lang: Lang) -> Messages:
        try:
            made = self.links.redeem(user, code, lang=lang)
        except TooManyCodes as exc:
            return _text(lang, "too_many_codes", minutes=max(1, exc.retry_after // 60))
        if made is None:
            return _text(lang, "bad_code")
        self._audit("line.linked", made)
        return _text(lang, "linked", member=made.member, household=made.household)

    def _reset_code(self, link: Link, lang: Lang, private: bool) -> Messages:
        """A forgotten web password: a one-time code, answered to this member's own LINE chat only."""
        if not private:
            return _text(lang, "reset_in_private")
        code = self.links.new_reset_code(link)
        self._audit("password.reset_requested", link)
        minutes = int(RESET_TTL.total_seconds() // 60)
        return _text(
            lang, "reset_code", code=code, member=link.member, household=link.household, minutes=minutes
        )

    def _context(self, link: Link) -> ToolContext[HouseholdDeps]:
        return self.butler.member(link.member, CHANNEL, household=link.household)

    async def _picture(
        self, link: Link, message_id: str, lang: Lang, key: str, loading: Loading | None
    ) -> Messages:
        """A photo (a receipt, a list): the model reads it as outside text, so any write it leads to is a card."""
        assert self.content is not None
        try:
            data = await self.content.fetch(message_id)
            block = await off_loop(image_block, data, CONSERVATIVE)  # 5 MB, 8,000 px, four types; inflated
        except (ContentUnavailable, ImageRefused) as exc:
            log.info("LINE picture %s not read: %s", message_id, exc)
            return _text(lang, "picture_refused")
        return await self._turn(link, say(lang, "picture_said"), lang, key, loading, images=[block])

    async def _turn(
        self,
        link: Link,
        text: str,
        lang: Lang,
        key: str,
        loading: Loading | None,
        *,
        images: Sequence[Block] = (),
    ) -> Messages:
        """One turn of the member's LINE conversation. ``Busy`` propagates: the worker tries again later."""
        try:
            turn = await off_loop(self._begin, link, text, key, images)
        except ModelNotConfigured:
            return _text(lang, "no_model")
        except InputRejected as exc:  # each refusal says its own reason (a card number is not "too long")
            return text_messages(exc.message_ja if lang == "ja" else str(exc))
        except UserInputError as exc:
            return text_messages(str(exc))
        if loading is not None:
            await loading(link.line_user)
        cards: Messages = []
        effects: list[UiEffect] = []
        answer: Messages = []
        async for step in self.service.events(turn):
            if isinstance(step, ProposalMade):
                if self._external(step.proposal.tool):  # leaves the household: decided in the app only
                    cards += _text(lang, "open_app", summary=step.proposal.summary)
                else:
                    cards.append(card(step.proposal, self.secret, lang))
            elif isinstance(step, EffectShown):
                effects.append(step.effect)
            elif isinstance(step, Finished):
                answer = text_messages(step.text)
            elif isinstance(step, Failed):
                log.warning("LINE turn failed: %s", step.message)
                answer = _text(lang, "turn_failed")
        return answer + effect_messages(effects, lang) + cards

    def _begin(self, link: Link, text: str, key: str, images: Sequence[Block]) -> Turn:
        """The member's turn claimed and started (``ChatService.begin(start=True)``), in one worker trip
        (blocking); the member's context read there too, on the trip's one pooled connection."""
        return self.service.begin(
            lambda: self._context(link),
            text,
            key=f"line:{key}",
            untrusted=looks_pasted(text),
            images=images,
            start=True,
        )

    async def _tap(self, data: str, link: Link) -> Messages:
        """A card button: decided by its owner only, once, before expiry — else a clear reply and no change."""
        lang = link.lang
        tap = parse_tap(data, self.secret)
        if tap is None:
            return _text(lang, "unknown_card")
        try:
            found = await off_loop(self.butler.proposals.get, tap.proposal)
            mine = (found.household, found.owner) == (link.household, link.member)
            if mine and self._external(found.tool):  # no such button is ever sent: decided in the app only
                return _text(lang, "open_app", summary=found.summary)
            ctx = await off_loop(self._context, link)
            decision = await self.service.decide(ctx, tap.proposal, approve=tap.approve)
        except NotFoundError:  # someone else's card answers exactly like a missing one
            return _text(lang, "not_yours")
        return self._decided(decision, lang)

    def _external(self, tool_name: str) -> bool:
        found = self.butler.toolbox.get(tool_name)
        return found is not None and found.external

    def _decided(self, decision: Decision, lang: Lang) -> Messages:
        p = decision.proposal
        if decision.done:
            shown = effect_messages(list(decision.output.effects), lang) if decision.output else []
            return (
                _text(lang, "approved" if p.status == "approved" else "rejected", summary=p.summary) + shown
            )
        if p.status == "failed":
            return _text(lang, "failed", summary=p.summary, result=(p.result or "")[:200])
        if p.status == "pending":
            return _text(lang, "expired")
        return _text(lang, "already", status=say(lang, f"status_{p.status}"))
