"""The words of the household domains beyond the first four lists (anniversaries …), ja and en.

Kept apart from ``_i18n.TEXT`` so each domain's words sit together; ``_i18n`` merges them in.
"""

from __future__ import annotations

DOMAIN_TEXT: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "panel_anniversaries": ("記念日", "Anniversaries"),
    "add_anniversary": ("記念日を追加", "Add an anniversary"),
    "anniversary_private": ("自分だけ", "Only me"),
    "anniversary_in": ("あと{days}日", "in {days} days"),
    "anniversary_today": ("今日", "today"),
    "anniversary_years": ("{years}年目", "year {years}"),
    "anniversary_since": ("{day}から", "since {day}"),
    "tool_list_anniversaries": ("記念日", "the anniversaries"),
    "tool_add_anniversary": ("記念日の追加", "adding an anniversary"),
    "tool_edit_anniversary": ("記念日の変更", "changing an anniversary"),
    "tool_remove_anniversary": ("記念日の削除", "removing an anniversary"),
    "tool_edit_event": ("予定の変更", "changing an event"),
    "tool_remove_event": ("予定の削除", "removing an event"),
    "tool_edit_expense": ("支出の変更", "changing an expense"),
    "tool_remove_expense": ("支出の削除", "removing an expense"),
}
