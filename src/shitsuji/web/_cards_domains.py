"""Card lines and fields for the household domains' tools (anniversaries, changes and removals …).

Kept apart from ``_cards.LINES`` so each domain's cards sit together; ``_cards`` merges them
in. ``{subject}`` is the name of the row the card's ``id`` points to, read when the card is
drawn (``Backend.card``), so a change or removal names what it touches, not an id.
"""

from __future__ import annotations

# tool: (what approving does ja / en, what was done ja / en)
DOMAIN_LINES: dict[str, tuple[str, str, str, str]] = {
    "add_recurring_todo": (
        "くり返しのToDo「{title}」({repeat})を追加",
        "Add the recurring to-do “{title}” ({repeat})",
        "くり返しのToDo「{title}」を追加しました。",
        "Added the recurring to-do “{title}”.",
    ),
    "add_anniversary": (
        "記念日「{title}」({date})を追加",
        "Add the anniversary “{title}” ({date})",
        "記念日「{title}」を追加しました。",
        "Added the anniversary “{title}”.",
    ),
    "edit_anniversary": (
        "記念日「{subject}」を変更",
        "Change the anniversary “{subject}”",
        "記念日「{subject}」を変更しました。",
        "Changed the anniversary “{subject}”.",
    ),
    "remove_anniversary": (
        "記念日「{subject}」を削除",
        "Remove the anniversary “{subject}”",
        "記念日「{subject}」を削除しました。",
        "Removed the anniversary “{subject}”.",
    ),
    "edit_event": (
        "予定「{subject}」を変更",
        "Change the event “{subject}”",
        "予定「{subject}」を変更しました。",
        "Changed the event “{subject}”.",
    ),
    "remove_event": (
        "予定「{subject}」を削除",
        "Remove the event “{subject}”",
        "予定「{subject}」を削除しました。",
        "Removed the event “{subject}”.",
    ),
    "edit_expense": (
        "支出({subject})を変更",
        "Change the expense ({subject})",
        "支出({subject})を変更しました。",
        "Changed the expense ({subject}).",
    ),
    "remove_expense": (
        "支出({subject})を削除",
        "Remove the expense ({subject})",
        "支出({subject})を削除しました。",
        "Removed the expense ({subject}).",
    ),
    "add_recipe": (
        "レシピ「{name}」を保存",
        "Save the recipe “{name}”",
        "レシピ「{name}」を保存しました。",
        "Saved the recipe “{name}”.",
    ),
    "edit_recipe": (
        "レシピ「{subject}」を変更",
        "Change the recipe “{subject}”",
        "レシピ「{subject}」を変更しました。",
        "Changed the recipe “{subject}”.",
    ),
    "remove_recipe": (
        "レシピ「{subject}」を削除",
        "Remove the recipe “{subject}”",
        "レシピ「{subject}」を削除しました。",
        "Removed the recipe “{subject}”.",
    ),
    "add_missing_to_shopping_list": (
        "「{recipe}」の足りない材料を買い物リストに追加",
        "Add what “{recipe}” still needs to the shopping list",
        "「{recipe}」の足りない材料を買い物リストに追加しました。",
        "Added what “{recipe}” needs to the shopping list.",
    ),
    "plan_meals": (
        "献立を予定に追加({count}件)",
        "Put {count} meals on the calendar",
        "献立を予定に追加しました。",
        "Put the meals on the calendar.",
    ),
    "add_nisa_contribution": (
        "NISA({frame_name})で「{fund}」を {amount} 購入として記録",
        "Record buying “{fund}” for {amount} in NISA ({frame_name})",
        "NISAの購入を記録しました。",
        "Recorded the NISA purchase.",
    ),
    "set_nisa_holding": (
        "NISA「{fund}」の評価額を {value_yen} に更新",
        "Set the NISA holding “{fund}” to {value_yen}",
        "評価額を更新しました。",
        "Updated the holding.",
    ),
    "remove_nisa_contribution": (
        "NISAの購入記録「{subject}」を削除",
        "Remove the NISA purchase of “{subject}”",
        "NISAの購入記録「{subject}」を削除しました。",
        "Removed the NISA purchase of “{subject}”.",
    ),
    "request_feature": (
        "アプリへの要望「{title}」をGitHubに登録(外部に送信)",
        "File the request “{title}” on GitHub (sent outside the household)",
        "要望をGitHubに登録しました。",
        "Filed the request on GitHub.",
    ),
}

_CHANGED = (
    ("field_title", "new_title"),
    ("field_when", "when"),
    ("field_date", "date"),
    ("field_note", "note"),
)

# tool: the fields shown on the card, as (word key, argument or value name)
DOMAIN_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "add_anniversary": (("field_title", "title"), ("field_date", "date"), ("field_note", "note")),
    "request_feature": (("field_title", "title"), ("field_note", "details")),
    "edit_anniversary": _CHANGED,
    "edit_event": _CHANGED,
    "edit_expense": (
        ("field_amount", "amount"),
        ("category", "category"),
        ("field_date", "date"),
        ("field_note", "note"),
    ),
}
