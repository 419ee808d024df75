"""The Activity page's rows as sentences in the page's language, naming the item each change touched.

An audit row keeps codes (``signin.ok``, ``panel.add_todo``, ``tool.ran``, channel ``app``);
a person reads 「ToDo「ゴミ出し」を追加」 / "Added the to-do “ゴミ出し”" and 「アプリ」.
Panel actions carry the row's name in their detail (``Backend.act`` records it, so a deleted
item is still named); a write run at once or through a card is worded as its card is
(``card_view``), from the proposal's arguments. An action this page does not know keeps its
code, so nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..agent import Proposal
from ._cards import card_view
from ._i18n import Words

# action: (ja, en); {name} is the item, {who} someone named in the detail
SENTENCES: dict[str, tuple[str, str]] = {
    "signin.ok": ("ログインしました", "Signed in"),
    "signin.failed": ("ログインに失敗しました", "A sign-in failed"),
    "signin.limited": (
        "ログインの失敗が続いたため一時的に止めました",
        "Sign-ins paused after repeated failures",
    ),
    "signout": ("ログアウトしました", "Signed out"),
    "password.set": ("パスワードを設定しました", "Set a password"),
    "invitation.made": ("{who} さんを招待しました", "Invited {who}"),
    "member.joined": ("世帯に参加しました", "Joined the household"),
    "panel.add_shopping_item": ("買い物リストに「{name}」を追加", "Added “{name}” to the shopping list"),
    "panel.check_shopping_item": (
        "買い物リストの「{name}」をチェック",
        "Ticked “{name}” on the shopping list",
    ),
    "panel.remove_shopping_item": (
        "買い物リストから「{name}」を削除",
        "Removed “{name}” from the shopping list",
    ),
    "panel.add_event": ("予定「{name}」を追加", "Added the event “{name}”"),
    "panel.remove_event": ("予定「{name}」を削除", "Removed the event “{name}”"),
    "panel.add_todo": ("ToDo「{name}」を追加", "Added the to-do “{name}”"),
    "panel.complete_todo": ("ToDo「{name}」の完了を切り替え", "Marked the to-do “{name}” done or open"),
    "panel.remove_todo": ("ToDo「{name}」を削除", "Removed the to-do “{name}”"),
    "panel.add_expense": ("支出「{name}」を記録", "Recorded the expense “{name}”"),
    "panel.remove_expense": ("支出「{name}」を削除", "Removed the expense “{name}”"),
    "panel.add_anniversary": ("記念日「{name}」を追加", "Added the anniversary “{name}”"),
    "panel.remove_anniversary": ("記念日「{name}」を削除", "Removed the anniversary “{name}”"),
    "panel.add_recipe": ("レシピ「{name}」を保存", "Saved the recipe “{name}”"),
    "panel.remove_recipe": ("レシピ「{name}」を削除", "Removed the recipe “{name}”"),
    "memory.remembered": ("記憶を追加しました", "Remembered a fact"),
    "memory.extracted": ("会話から記憶を追加しました", "Picked up a fact from a conversation"),
    "memory.edited": ("記憶を編集しました", "Edited a memory"),
    "memory.keys_added": ("記憶に検索キーを追加しました", "Added search keys to a memory"),
    "memory.forgotten": ("記憶を忘れました", "Forgot a memory"),
    "memory.restored": ("記憶を戻しました", "Restored a memory"),
    "memory.imported": ("記憶を取り込みました", "Imported memories"),
    "memory.purged": ("忘れた記憶を完全に削除しました", "Purged forgotten memories"),
    "tool.ran": ("執事が実行: {name}", "The butler did: {name}"),
    "tool.failed": ("執事が実行できませんでした: {name}", "The butler could not: {name}"),
    "proposal.made": ("確認カード: {name}", "Card: {name}"),
    "proposal.approved": ("承認: {name}", "Approved: {name}"),
    "proposal.rejected": ("却下: {name}", "Rejected: {name}"),
    "proposal.expired": ("期限切れ: {name}", "Expired: {name}"),
    "proposal.failed": ("実行できませんでした: {name}", "Failed: {name}"),
}


def _what(event: Mapping[str, Any], t: Words, cards: Mapping[str, Proposal]) -> str:
    """The item an event touched, in words."""
    detail: Mapping[str, Any] = event.get("detail") or {}
    action = str(event.get("action", ""))
    if action.startswith("panel."):
        return str(detail.get("name") or t("this_one"))
    if action.startswith("tool."):
        card = {
            "tool": event.get("subject"),
            "input": detail.get("input") or {},
            "subject": detail.get("name"),
        }
        return str(card_view(card, t)["title"])
    if action.startswith("proposal."):
        found = cards.get(str(event.get("subject")))
        if found is None:
            return str(detail.get("summary") or "")
        card = {"tool": found.tool, "input": found.input, "subject": detail.get("name")}
        return str(card_view(card, t)["title"])
    return ""


def sentence(event: Mapping[str, Any], t: Words, cards: Mapping[str, Proposal]) -> str:
    """``event`` (``AuditEvent.to_json()``) as a sentence in ``t``'s language; its code if unknown."""
    pair = SENTENCES.get(str(event.get("action", "")))
    if pair is None:
        return str(event.get("action", ""))
    detail: Mapping[str, Any] = event.get("detail") or {}
    text = pair[0] if t.lang == "ja" else pair[1]
    return text.format(name=_what(event, t, cards), who=detail.get("invited") or "")


def channel_name(channel: str | None, t: Words) -> str:
    """「アプリ」, 「LINE」, 「コマンドライン」 …; empty when the event names none."""
    return t.label("channel", channel) if channel else ""
