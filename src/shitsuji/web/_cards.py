"""Confirmation cards in the page's language: what approving does, the fields that matter, the outcome.

A proposal stores the tool, its checked arguments and a status; the summary and result
written when it was made are for the model and the terminal (the result is the tool's
English text). A person reads this instead: a plain line per tool in Japanese or English,
the important fields (item, date, amount …), the state with who decided and when in the
household's time zone, and why a decision did nothing (``Decision.code``). Tool names, raw
arguments and ids stay under the card's "details" toggle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UserInputError
from ..household import rule_of
from ._cards_domains import DOMAIN_FIELDS, DOMAIN_LINES
from ._i18n import Words

Values = Callable[[dict[str, Any], Words], dict[str, str]]

# tool: (what approving does ja / en, what was done ja / en)
LINES: dict[str, tuple[str, str, str, str]] = {
    "add_shopping_item": (
        "買い物リストに「{item}」を追加",
        "Add “{item}” to the shopping list",
        "買い物リストに「{item}」を追加しました。",
        "Added “{item}” to the shopping list.",
    ),
    "add_event": (
        "予定「{title}」({when})を追加",
        "Add the event “{title}” ({when})",
        "予定「{title}」を追加しました。",
        "Added the event “{title}”.",
    ),
    "add_todo": (
        "ToDo「{title}」を追加",
        "Add the to-do “{title}”",
        "ToDo「{title}」を追加しました。",
        "Added the to-do “{title}”.",
    ),
    "add_expense": (
        "支出 {amount}({category})を記録",
        "Record {amount} spent on {category}",
        "支出 {amount} を記録しました。",
        "Recorded {amount}.",
    ),
    "complete_todo": (
        "ToDo「{title}」を完了にする",
        "Mark the to-do “{title}” done",
        "ToDo「{title}」を完了にしました。",
        "Marked “{title}” done.",
    ),
    "remove_shopping_item": (
        "買い物リストから「{item}」を削除",
        "Remove “{item}” from the shopping list",
        "買い物リストから「{item}」を削除しました。",
        "Removed “{item}” from the shopping list.",
    ),
    "remember": (
        "「{content}」を覚える",
        "Remember “{content}”",
        "覚えました。",
        "Remembered.",
    ),
    "open_panel": (
        "{panel}パネルを開く",
        "Open the {panel} panel",
        "{panel}パネルを開きました。",
        "Opened the {panel} panel.",
    ),
    **DOMAIN_LINES,
}

# tool: the fields shown on the card, as (word key, argument or value name)
FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "add_shopping_item": (("field_item", "name"), ("quantity", "quantity")),
    "add_event": (("field_title", "title"), ("field_when", "when"), ("field_note", "note")),
    "add_todo": (("field_title", "title"), ("field_due", "due")),
    "add_expense": (
        ("field_amount", "amount"),
        ("category", "category"),
        ("field_date", "date"),
        ("field_note", "note"),
    ),
    "complete_todo": (("field_title", "title"),),
    "remove_shopping_item": (("field_item", "item"),),
    "remember": (("field_fact", "content"), ("category", "category")),
    **DOMAIN_FIELDS,
}


def _values(card: dict[str, Any], t: Words) -> dict[str, str]:
    """The arguments as a person reads them (dates, yen, names of what an id points to)."""
    a: dict[str, Any] = card.get("input") or {}
    subject = card.get("subject") or t("this_one")
    quantity = int(a.get("quantity") or 1)
    values = {k: str(v) for k, v in a.items() if v is not None}
    values.update(
        item=f"{a['name']} ×{quantity}" if "name" in a and quantity > 1 else str(a.get("name") or subject),
        title=str(a.get("title") or subject),
        subject=str(subject),
        new_title=str(a.get("title") or ""),  # a change's new title (none: unchanged)
        count=str(len(a["meals"])) if isinstance(a.get("meals"), list) else "",
        frame_name=t("nisa_" + str(a.get("frame"))) if a.get("frame") else "",
        value_yen=t.yen(int(a["value"])) if isinstance(a.get("value"), int) else "",
        when=t.span(a["start"], a.get("end")) if a.get("start") else "",
        due=t.when(a["due"]) if a.get("due") else "",
        amount=t.yen(int(a["amount"])) if isinstance(a.get("amount"), int) else "",
        date=t.day(a["date"]) if a.get("date") else (t("today") if card.get("tool") == "add_expense" else ""),
        content=t.short(str(a.get("content", "")), 40),
        panel=t("panel_" + str(a.get("name"))) if card.get("tool") == "open_panel" else "",
        repeat=_repeat(a, t.lang),
    )
    if card.get("tool") == "remember":
        values["category"] = t.label("cat", a.get("category", ""))
        values["content"] = str(a.get("content", ""))
    return values


def _repeat(a: dict[str, Any], lang: str) -> str:
    """A recurring to-do's rule in words ("毎週月・木"), or "" (not one, or not a rule)."""
    if not ("weekdays" in a or "day_of_month" in a):
        return ""
    try:
        return rule_of(a.get("weekdays"), a.get("weeks"), a.get("day_of_month")).describe(lang)
    except UserInputError:
        return ""


def card_view(card: dict[str, Any], t: Words) -> dict[str, Any]:
    """What the card shows, in ``t``'s language and time zone (``card``: ``Backend.card``'s JSON)."""
    tool = str(card.get("tool", ""))
    values = _values(card, t)
    lines = LINES.get(tool)
    ja = t.lang == "ja"
    if lines is None:  # a tool this app does not know: its own summary is all there is
        title, done = str(card.get("summary", tool)), ""
    else:
        short = {**values, "content": t.short(values.get("content", ""), 40)}
        title = (lines[0] if ja else lines[1]).format(**short)
        done = (lines[2] if ja else lines[3]).format(**short)
    fields = [
        {"label": t(key), "value": values[name]}
        for key, name in FIELDS.get(tool, ())
        if values.get(name) and not (name == "quantity" and values[name] == "1")
    ]
    state = str(card.get("state", card.get("status", "")))
    decided = ""
    if card.get("decided_by"):
        decided = t("decided_by", who=card["decided_by"]) + " · " + t.when(card.get("decided_at"))
    outcome = {"approved": done, "failed": t("card_failed")}.get(state, "")
    return {
        "title": title,
        "fields": fields,
        "state": state,
        "state_text": t("status_" + state),
        "expires": t.when(card.get("expires_at")),
        "decided": decided,
        "outcome": outcome,
        "detail": card.get("result") or "",  # the tool's own words, under "details"
    }


def decision_text(code: str, card: dict[str, Any], t: Words) -> str:
    """Why a decision did nothing (``Decision.code``), in the page's language."""
    state = t("status_" + str(card.get("status", "")))
    return t(
        "why_" + code,
        owner=card.get("owner", ""),
        state=state,
        who=card.get("decided_by") or "",
        at=t.when(card.get("decided_at") or card.get("expires_at")),
    )
