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
from dataclasses import dataclass
from typing import Any

from ..agent import Proposal, UiEffect
from ..household import ShoppingList
from ._words import Lang, say

__all__ = ["Tap", "card", "effect_messages", "nonce", "parse_tap", "shopping_list", "text_messages"]

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


def shopping_list(effect: ShoppingList, lang: Lang) -> dict[str, Any]:
    """The shopping list as a Flex bubble: a title and one row per item with its quantity."""
    title = say(lang, "shopping")
    rows: list[dict[str, Any]] = [
        {
            "type": "box",
            "layout": "horizontal",
            "contents": [
                {"type": "text", "text": _cut(item.name, 60), "flex": 5, "wrap": True},
                {"type": "text", "text": f"×{item.quantity}", "flex": 1, "align": "end", "color": "#888888"},
            ],
        }
        for item in effect.items[:30]
    ] or [{"type": "text", "text": say(lang, "shopping_empty"), "color": "#888888"}]
    names = "、".join(item.name for item in effect.items) or say(lang, "shopping_empty")
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
            "body": {"type": "box", "layout": "vertical", "spacing": "sm", "contents": rows},
        },
    }


def effect_messages(effects: list[UiEffect], lang: Lang) -> list[dict[str, Any]]:
    """Rich messages for the effects LINE can show (the latest of each kind); others are skipped."""
    latest: dict[type[UiEffect], UiEffect] = {}
    for effect in effects:
        latest[type(effect)] = effect
    shown = latest.get(ShoppingList)
    return [shopping_list(shown, lang)] if isinstance(shown, ShoppingList) else []
