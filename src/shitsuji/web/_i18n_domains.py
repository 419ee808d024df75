"""The words of the household domains beyond the first four lists (anniversaries …), ja and en.

Kept apart from ``_i18n.TEXT`` so each domain's words sit together; ``_i18n`` merges them in.
"""

from __future__ import annotations

DOMAIN_TEXT: dict[str, tuple[str, str]] = {  # key: (ja, en)
    # accessible names of fields that show only a placeholder or nothing
    "message_label": ("執事へのメッセージ", "Message to the butler"),
    "memory_content": ("記憶の内容", "What is remembered"),
    "settle_more": (
        "今月は {who} さんが {amount} 多く払っています(負担割合 {split})",
        "This month {who} paid {amount} more than their share (split {split})",
    ),
    "settle_even": (
        "今月の支払いは負担割合({split})どおりです",
        "This month's payments match the split ({split})",
    ),
    "trend_label": ("最近6か月の支出", "Spending over the last six months"),
    "tool_settlement": ("精算", "the settlement"),
    "tool_set_split": ("負担割合の変更", "changing the split"),
    "tool_set_expense_payer": ("支払った人の記録", "recording who paid"),
    "panel_anniversaries": ("記念日", "Anniversaries"),
    "add_anniversary": ("記念日を追加", "Add an anniversary"),
    "anniversary_private": ("自分だけ", "Only me"),
    "anniversary_in": ("あと{days}日", "in {days} days"),
    "anniversary_today": ("今日", "today"),
    "anniversary_years": ("{years}年目", "year {years}"),
    "anniversary_since": ("{day}から", "since {day}"),
    "panel_recipes": ("レシピ", "Recipes"),
    "add_recipe": ("料理名", "Dish"),
    "recipe_ingredients": ("材料(例: 卵 2個、玉ねぎ 1個)", "Ingredients (e.g. eggs 2, onion 1)"),
    "recipe_tags": ("タグ(任意)", "Tags (optional)"),
    "recipe_steps": ("手順", "Steps"),
    "recipe_source": ("出典", "Source"),
    "tool_list_recipes": ("レシピ", "the recipes"),
    "tool_find_recipes": ("作れる料理", "what can be made"),
    "tool_add_recipe": ("レシピの追加", "saving a recipe"),
    "tool_edit_recipe": ("レシピの変更", "changing a recipe"),
    "tool_remove_recipe": ("レシピの削除", "removing a recipe"),
    "tool_add_missing_to_shopping_list": (
        "足りない材料を買い物リストへ",
        "adding what is missing to the list",
    ),
    "tool_plan_meals": ("献立を予定に", "planning meals"),
    "nisa_tsumitate": ("つみたて投資枠", "tsumitate frame"),
    "nisa_growth": ("成長投資枠", "growth frame"),
    "tool_nisa_allowance": ("NISAの枠", "the NISA allowance"),
    "tool_list_nisa": ("NISA", "NISA"),
    "tool_add_nisa_contribution": ("NISAの購入記録", "recording a NISA purchase"),
    "tool_set_nisa_holding": ("NISAの評価額", "updating a NISA holding"),
    "tool_remove_nisa_contribution": ("NISAの購入記録の削除", "removing a NISA purchase"),
    "tool_request_feature": ("アプリへの要望", "a request for the app"),
    "tool_list_anniversaries": ("記念日", "the anniversaries"),
    "tool_add_anniversary": ("記念日の追加", "adding an anniversary"),
    "tool_edit_anniversary": ("記念日の変更", "changing an anniversary"),
    "tool_remove_anniversary": ("記念日の削除", "removing an anniversary"),
    "tool_edit_event": ("予定の変更", "changing an event"),
    "tool_remove_event": ("予定の削除", "removing an event"),
    "tool_edit_expense": ("支出の変更", "changing an expense"),
    "tool_remove_expense": ("支出の削除", "removing an expense"),
}
