"""The butler's answer as LINE messages: text, confirmation cards, and rich lists from typed UI effects.

Everything LINE shows is built here from data — the model's text, a ``Proposal``, a
``ShoppingList`` effect — never from markup the model wrote. A card is a confirm
template whose two postback buttons carry only the proposal's opaque id, a nonce (an
HMAC of the id under the channel secret, so a made-up id is refused before any lookup)
and the verb; never the arguments.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..agent import Proposal, UiEffect
from ..household import AnniversaryList, ShoppingList
from ._words import Lang, say

__all__ = [
    "Tap",
    "anniversary_list",
    "card",
    "effect_messages",
    "list_bubble",
    "nonce",
    "parse_tap",
    "shopping_list",
    "text_messages",
]

MAX_TEXT = 5000  # characters in one text message
CONFIRM_TEXT = 240
ALT_TEXT = 400
_PREFIX = "sj1"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def text_messages(text: str) -> list[dict[str, Any]]:
    """The text as one or more text messages (LINE allows 5,000 characters in each)."""
    text = text.strip()
    return [{"type": "text", "text": text[i : i + MAX_TEXT]} for i in range(0, len(text), MAX_TEXT)]


def nonce(secret: str, proposal_id: str) -> str:
    return hmac.new(secret.encode(), proposal_id.encode(), hashlib.sha256).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Tap:
    """A tapped card button: which proposal, and approve or reject."""

    proposal: str
    approve: bool


def parse_tap(data: str, secret: str) -> Tap | None:
    """The button behind postback ``data``, or None when it is not one of our cards (or forged)."""
    parts = data.split(":")
    if len(parts) != 4 or parts[0] != _PREFIX or parts[3] not in ("a", "r"):
        return None
    if not hmac.compare_digest(parts[2], nonce(secret, parts[1])):
        return None
    return Tap(parts[1], parts[3] == "a")


def card(proposal: Proposal, secret: str, lang: Lang) -> dict[str, Any]:
    """A confirm template with Approve / Reject postback buttons for a pending proposal."""
    mark = nonce(secret, proposal.id)

    def button(verb: str, key: str) -> dict[str, Any]:
        label = say(lang, key)
        return {"type": "postback", "label": label, "data": f"{_PREFIX}:{proposal.id}:{mark}:{verb}"}

    return {
        "type": "template",
        "altText": _cut(say(lang, "card_alt", summary=proposal.summary), ALT_TEXT),
        "template": {
            "type": "confirm",
            "text": _cut(say(lang, "confirm", summary=_cut(proposal.summary, 200)), CONFIRM_TEXT),
            "actions": [button("a", "approve"), button("r", "reject")],
        },
    }


def list_bubble(title: str, rows: list[tuple[str, str]], empty: str) -> dict[str, Any]:
    """A Flex bubble: a title, then one row per (left, right) pair (``empty`` when there are none)."""
    lines: list[dict[str, Any]] = [
        {
            "type": "box",
            "layout": "horizontal",
            "contents": [
                {"type": "text", "text": _cut(left, 60), "flex": 5, "wrap": True},
                {"type": "text", "text": right, "flex": 2, "align": "end", "color": "#888888"},
            ],
        }
        for left, right in rows[:30]
    ] or [{"type": "text", "text": empty, "color": "#888888"}]
    names = "、".join(left for left, _ in rows) or empty
    return {
        "type": "flex",
        "altText": _cut(f"{title}: {names}", ALT_TEXT),
        "contents": {
            "type": "bubble",
            "header": {
                "type": "box",
                "layout": "vertical",
                "contents": [{"type": "text", "text": title, "weight": "bold", "size": "lg"}],
            },
            "body": {"type": "box", "layout": "vertical", "spacing": "sm", "contents": lines},
        },
    }


def shopping_list(effect: ShoppingList, lang: Lang) -> dict[str, Any]:
    """The shopping list as a Flex bubble: a title and one row per item with its quantity."""
    rows = [(item.name, f"×{item.quantity}") for item in effect.items]
    return list_bubble(say(lang, "shopping"), rows, say(lang, "shopping_empty"))


def anniversary_list(effect: AnniversaryList, lang: Lang) -> dict[str, Any]:
    """The coming anniversaries as a Flex bubble: each with its day and how many days until it."""
    rows = []
    for coming in effect.coming:
        left = say(lang, "today") if coming.days == 0 else say(lang, "days_left", days=coming.days)
        rows.append((f"{coming.anniversary.title}（{coming.on.month}/{coming.on.day}）", left))
    return list_bubble(say(lang, "anniversaries"), rows, say(lang, "anniversaries_empty"))


_RENDERERS: dict[type[UiEffect], Callable[[Any, Lang], dict[str, Any]]] = {
    ShoppingList: shopping_list,
    AnniversaryList: anniversary_list,
}


def effect_messages(effects: list[UiEffect], lang: Lang) -> list[dict[str, Any]]:
    """Rich messages for the effects LINE can show (the latest of each kind); others are skipped."""
    latest: dict[type[UiEffect], UiEffect] = {}
    for effect in effects:
        latest[type(effect)] = effect
    return [_RENDERERS[kind](shown, lang) for kind, shown in latest.items() if kind in _RENDERERS]
