"""The web UI's words in Japanese and English, and how dates and yen are written in each.

The language is the ``lang`` cookie when the person chose one, else the browser's
``Accept-Language``; Japanese unless English is preferred over it.
"""

from __future__ import annotations

import json
from datetime import date, datetime, tzinfo
from typing import Any, Literal

from ..household import Recurrence
from ._i18n_domains import DOMAIN_TEXT
from ._i18n_pictures import PICTURE_TEXT
from ._i18n_repeat import REPEAT_TEXT

Lang = Literal["ja", "en"]
LANGS: tuple[Lang, ...] = ("ja", "en")

_WEEKDAYS_JA = "月火水木金土日"

TEXT: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "app": ("執事", "shitsuji"),
    "chat": ("チャット", "Chat"),
    "memories": ("記憶", "Memories"),
    "proposals": ("確認", "Proposals"),
    "activity": ("記録", "Activity"),
    "activity_note": (
        "この世帯で起きた変更の記録です（ほかのメンバー個人の記憶に関するものは表示されません）。",
        "What changed in this household (other members' private memories are left out).",
    ),
    "activity_when": ("日時", "When"),
    "activity_who": ("誰が", "Who"),
    "activity_what": ("何を", "What"),
    "activity_where": ("どこから", "Where"),
    "sign_in": ("ログイン", "Sign in"),
    "sign_out": ("ログアウト", "Sign out"),
    "household": ("世帯", "Household"),
    "user": ("ユーザー名", "User"),
    "password": ("パスワード", "Password"),
    "bad_login": (
        "ユーザー名かパスワードが違います。",
        "Wrong user or password.",
    ),
    "too_many": (
        "ログインの失敗が続いたため、{seconds} 秒後にもう一度お試しください。",
        "Too many failed sign-ins: try again in {seconds} seconds.",
    ),
    "signed_out_note": (
        "この家の執事です。世帯のメンバーとしてログインしてください。",
        "This is your household's butler. Sign in as a member of the household.",
    ),
    "setup": ("はじめに", "Get started"),
    "setup_note": (
        "まだ世帯がありません。世帯の名前と、あなたのユーザー名・パスワードを決めてください。家族は後から追加できます。",
        "There is no household yet. Name it and choose your user id and password; add the others now or later.",
    ),
    "setup_household": (
        "世帯の名前(40文字まで・空白と「/」なし。例: futari、山田家)",
        "Household name (up to 40 characters, no spaces or '/'; e.g. futari)",
    ),
    "setup_user": (
        "あなたのユーザー名(40文字まで・空白と「/」なし。例: wife、はなこ)",
        "Your user id (up to 40 characters, no spaces or '/'; e.g. wife)",
    ),
    "setup_others": (
        "ほかのメンバー(空白区切り、任意。あとで設定から招待できます)",
        "Other members (space-separated, optional; invite them later from Settings)",
    ),
    "bad_household": (
        "世帯の名前「{name}」は使えません。空白と「/」を含まない40文字までにしてください。",
        "The household name “{name}” cannot be used: up to 40 characters, without spaces or '/'.",
    ),
    "bad_user": (
        "ユーザー名「{name}」は使えません。空白と「/」を含まない40文字までにしてください。",
        "The user id “{name}” cannot be used: up to 40 characters, without spaces or '/'.",
    ),
    "bad_time_zone": (
        "タイムゾーン「{zone}」はわかりません。一覧から選んでください。",
        "Unknown time zone “{zone}”: pick one from the list.",
    ),
    "password_short": (
        "パスワードは8文字以上にしてください。",
        "The password is too short: use at least 8 characters.",
    ),
    "time_zone": ("タイムゾーン", "Time zone"),
    "password_again": ("パスワード(確認)", "Password again"),
    "passwords_differ": ("パスワードが一致しません。", "The passwords differ."),
    "create": ("作成してはじめる", "Create and start"),
    "send": ("送信", "Send"),
    "message_placeholder": ("執事に話しかける…", "Ask the butler…"),
    "earlier_chats": ("これまでの会話", "Earlier conversations"),
    "messages_count": ("{n}件", "{n} messages"),
    "new_chat": ("新しい会話", "New chat"),
    "thinking": ("考えています…", "Thinking…"),
    "running_tools": ("調べています: {tools}", "Looking up: {tools}"),
    "no_model": (
        "モデルの接続先が設定されていません。ANTHROPIC_API_KEY(Claude)または SHITSUJI_MODEL_URL"
        "(OpenAI 互換サーバー)を設定して `shitsuji serve` を再起動してください。パネル・記憶・確認待ちはそのまま使えます。",
        "No model endpoint is configured: set ANTHROPIC_API_KEY (Claude) or SHITSUJI_MODEL_URL "
        "(an OpenAI-compatible server) and restart `shitsuji serve`. Panels, memories and proposals still work.",
    ),
    "local_model": (
        "このマシンで OpenAI 互換サーバーが応答しています({url})。これを使うには、次のように起動し直してください:",
        "An OpenAI-compatible server answers on this machine ({url}). To use it, restart like this:",
    ),
    "empty_chat": (
        "買い物、予定、ToDo、家計のことを頼んでください。書き込みは確認してから行います。",
        "Ask about shopping, plans, to-dos or spending. Anything that changes data waits for your OK.",
    ),
    "confirm": ("確認", "Confirm"),
    "approve": ("承認", "Approve"),
    "reject": ("却下", "Reject"),
    "expires": ("期限", "Expires"),
    "arguments": ("内容", "Arguments"),
    "status_pending": ("確認待ち", "pending"),
    "status_running": ("実行中", "running"),
    "status_interrupted": ("中断", "interrupted"),
    "card_interrupted": (
        "実行中に止まりました。まだ反映されていません。",
        "It stopped while being carried out; nothing was changed yet.",
    ),
    "retry": ("やり直す", "Retry"),
    "status_approved": ("承認済み", "approved"),
    "status_rejected": ("却下", "rejected"),
    "status_failed": ("失敗", "failed"),
    "status_expired": ("期限切れ", "expired"),
    "decided_by": ("判断: {who}", "decided by {who}"),
    "result": ("結果", "Result"),
    "pending": ("確認待ち", "Pending"),
    "decided": ("判断済み", "Decided"),
    "expired": ("期限切れ", "Expired"),
    "none_yet": ("まだありません。", "Nothing yet."),
    "line_linked": ("LINE アカウントがつながっています。", "A LINE account is linked to you."),
    "line_not_linked": (
        "LINE でも執事と話せます。コードを発行して、執事の LINE アカウントに送ってください。",
        "You can talk to the butler in LINE too: get a code and send it to the butler's LINE account.",
    ),
    "line_get_code": ("LINE のリンクコードを発行", "Get a LINE link code"),
    "line_code_note": (
        "このコードを執事の LINE アカウントとの一対一のトークに送ってください。一度だけ使えます。",
        "Send this code to the butler's LINE account in a one-to-one chat. It works once.",
    ),
    "line_code_expires": ("有効期限:", "Valid until:"),
    "panels": ("パネル", "Panels"),
    "panel_shopping": ("買い物", "Shopping"),
    "panel_calendar": ("予定", "Calendar"),
    "panel_todos": ("ToDo", "To-dos"),
    "panel_budget": ("家計", "Budget"),
    "close": ("閉じる", "Close"),
    "quantity": ("数量", "Qty"),
    "added_by": ("追加: {who}", "added by {who}"),
    "due": ("期限 {day}", "due {day}"),
    "no_due": ("期限なし", "no due date"),
    "total": ("合計", "Total"),
    "month_total": ("{month}の合計", "Total for {month}"),
    "search": ("検索", "Search"),
    "search_placeholder": ("意味や言葉で探す", "Search by meaning or words"),
    "category": ("分類", "Category"),
    "all": ("すべて", "All"),
    "scope": ("範囲", "Scope"),
    "scope_own": ("自分", "Mine"),
    "scope_shared": ("世帯で共有", "Shared"),
    "shared": ("共有", "Shared"),
    "forgotten": ("忘れた記憶", "Forgotten"),
    "show_forgotten": ("忘れた記憶を表示", "Show forgotten"),
    "edit": ("編集", "Edit"),
    "save": ("保存", "Save"),
    "forget": ("忘れる", "Forget"),
    "restore": ("戻す", "Restore"),
    "why": ("なぜ知っているの?", "Why do you know this?"),
    "provenance": ("出どころ", "Provenance"),
    "source": ("取得方法", "Source"),
    "created": ("記録日時", "Recorded"),
    "importance": ("重要度", "Importance"),
    "conversation": ("会話", "Conversation"),
    "from_message": ("元の発言", "From the message"),
    "edited_from": ("編集前", "Edited from"),
    "no_provenance": (
        "この記憶には出どころの記録がありません(手入力や取り込みなど)。",
        "This memory has no recorded origin (typed in or imported).",
    ),
    "source_remembered": ("覚えてと頼まれて", "Asked to remember"),
    "source_extracted": ("会話から自動で記録", "Picked up from a conversation"),
    "source_imported": ("取り込み", "Imported"),
    "channel_app": ("アプリ", "the app"),
    "channel_line": ("LINE", "LINE"),
    "channel_cli": ("コマンドライン", "the command line"),
    "role_user": ("あなた", "You"),
    "role_assistant": ("執事", "Butler"),
    "cat_profile": ("プロフィール", "Profile"),
    "cat_preference": ("好み", "Preference"),
    "cat_media": ("作品", "Media"),
    "cat_event": ("出来事", "Event"),
    "cat_misc": ("その他", "Misc"),
    "back": ("戻る", "Back"),
    "language": ("言語", "Language"),
    "not_found": ("見つかりません。", "Not found."),
    "chat_409": (
        "前のメッセージへの返事をまだ書いています。終わってから送ってください。",
        "The butler is still answering your previous message: send this when it has finished.",
    ),
    "chat_413": (
        "メッセージが長すぎます。分けて送ってください。",
        "The message is too long: send it in parts.",
    ),
    "chat_422": (
        "メッセージが長すぎるか、空です(8,000文字まで)。",
        "The message is empty or too long (8,000 characters at most).",
    ),
    "chat_400": ("メッセージを確認してください。", "Please check the message."),
    "chat_401": (
        "ログインが切れました。ページを再読み込みしてください。",
        "You were signed out: reload the page.",
    ),
    "chat_403": ("ページが古くなりました。再読み込みしてください。", "The page is out of date: reload it."),
    "chat_503": ("モデルが設定されていません。", "No model is configured."),
    "chat_model_failed": (
        "モデルに届きませんでした。メッセージは保存してあります。少し待ってもう一度送ってください。",
        "The model could not be reached. Your message is kept: try again in a moment.",
    ),
    "chat_internal": (
        "サーバーでエラーが起きました。メッセージは保存してあります。",
        "Something went wrong on the server. Your message is kept.",
    ),
    "error_400": ("入力を確認してください。", "Please check what you entered."),
    "error_403": (
        "フォームの有効期限が切れました。ページを読み込み直して、もう一度お試しください。",
        "The form expired. Reload the page and try again.",
    ),
    "error_404": (
        "見つかりません。削除されたか、見る権限がありません。",
        "Not found: it is gone, or not yours to see.",
    ),
    "error_409": ("すでに判断済みか、期限が切れています。", "It was already decided, or it has expired."),
    "error_422": ("入力を確認してください。", "Please check what you entered."),
    "error_429": ("しばらく待ってから、もう一度お試しください。", "Wait a moment, then try again."),
    "error_500": (
        "うまくいきませんでした。もう一度お試しください。",
        "Something went wrong. Please try again.",
    ),
    "error_502": ("モデルの応答でエラーが起きました。", "The model answered with an error."),
    "error_503": ("モデルが設定されていません。", "No model is configured."),
    "error": ("エラー", "Error"),
    # settings, invitations
    "settings": ("設定", "Settings"),
    "notifications": ("お知らせ", "Notifications"),
    "time_zone_note": (
        "「今日」「今月」、予定の時刻、表示されるすべての時刻はこのタイムゾーンで決まります。",
        "“Today”, “this month”, event times and every time shown follow this zone.",
    ),
    "zone_unset": ("未設定(サーバーの時刻を使用中)", "Not chosen (the server's time is used)"),
    "saved": ("保存しました。", "Saved."),
    "change_password": ("パスワードの変更", "Change your password"),
    "current_password": ("いまのパスワード", "Current password"),
    "new_password": ("新しいパスワード(8文字以上)", "New password (at least 8 characters)"),
    "password_changed": (
        "パスワードを変更しました。ほかの端末ではログインし直してください。",
        "Password changed. Other devices need to sign in again.",
    ),
    "wrong_password": ("いまのパスワードが違います。", "The current password is wrong."),
    "members": ("メンバー", "Members"),
    "can_sign_in": ("ログインできます", "can sign in"),
    "no_password_yet": ("パスワード未設定", "no password yet"),
    "you": ("あなた", "you"),
    "make_link": ("招待リンクを作る", "Make a link"),
    "invite_note": (
        "新しいメンバーのユーザー名を入れてください。リンクは一度だけ表示され、48時間・1回だけ使えます。"
        "開いた人が自分でパスワードを決めます。パスワードを忘れたメンバーは、自分の LINE から再設定します。",
        "Type a new member's user id. The link is shown once and works once, for 48 hours; whoever opens "
        "it chooses their own password. A member who forgot their password resets it from their own LINE.",
    ),
    "invite_member": (
        "{user} さんはすでにメンバーです。パスワードを忘れたときは、本人が LINE で執事に「パスワード再設定」と"
        "送るか、サーバーで `shitsuji household set-password {user}` を実行してください。",
        "{user} is already a member. A forgotten password is reset by its owner: send “reset password” to "
        "the butler on LINE, or run `shitsuji household set-password {user}` on the server.",
    ),
    "forgot": ("パスワードを忘れた", "Forgot your password?"),
    "forgot_note": (
        "LINE で執事に「パスワード再設定」と送ると、あなたの LINE にだけ再設定コードが届きます"
        "(15分間・1回限り)。そのコードと新しいパスワードを入力してください。",
        "Send “reset password” to the butler on LINE: a reset code comes to your own LINE account only "
        "(15 minutes, once). Enter it here with a new password.",
    ),
    "reset_code": ("再設定コード", "Reset code"),
    "bad_reset_code": (
        "ユーザー名・世帯・コードのどれかが違うか、コードが使用済みか期限切れです。"
        "LINE で「パスワード再設定」と送り、新しいコードを受け取ってください。",
        "The user, household or code is wrong, or the code was used or expired. Send “reset password” to "
        "the butler on LINE for a new one.",
    ),
    "line_account": ("LINE アカウント {account}", "LINE account {account}"),
    "linked_since": ("{at} からリンク", "linked since {at}"),
    "line_unlink": ("LINE のリンクを解除", "Unlink LINE"),
    "line_unlink_note": (
        "解除すると、その LINE アカウントからの発言はあなたとして扱われなくなります。",
        "Once unlinked, that LINE account no longer speaks for you.",
    ),
    "line_unlinked": ("LINE のリンクを解除しました。", "LINE is unlinked."),
    "invite_user": ("ユーザー名", "User id"),
    "link_for": (
        "{user} さん用のリンク(期限 {at})。いまコピーして渡してください:",
        "The link for {user} (until {at}). Copy it now and pass it on:",
    ),
    "invite_self": (
        "自分のパスワードは下の「パスワードの変更」で変えられます。",
        "That is you: change your own password below.",
    ),
    "link_gone": (
        "このリンクは使えません(期限切れか、使用済み)。メンバーに新しいリンクを頼んでください。",
        "This link cannot be used (expired or used). Ask a member for a new one.",
    ),
    "join": ("世帯に参加", "Join the household"),
    "join_note": (
        "{household} に {user} として参加します。パスワードを決めてください。",
        "You are joining {household} as {user}. Choose your password.",
    ),
    "reset_note": (
        "{household} の {user} さんの新しいパスワードを決めてください。",
        "Choose a new password for {user} in {household}.",
    ),
    "cli_reset": (
        "LINE をつないでいないときは、サーバーで `shitsuji household set-password ユーザー名` を実行してください。",
        "Without LINE, whoever runs the server sets it: `shitsuji household set-password USER`.",
    ),
    # what the butler is doing, by tool (the raw names are under a card's "details")
    "tool_list_shopping_items": ("買い物リスト", "the shopping list"),
    "tool_list_events": ("予定", "the calendar"),
    "tool_list_todos": ("ToDo", "the to-dos"),
    "tool_list_expenses": ("支出", "the expenses"),
    "tool_search_memory": ("記憶", "memories"),
    "tool_add_shopping_item": ("買い物の追加", "adding to the shopping list"),
    "tool_add_event": ("予定の追加", "adding an event"),
    "tool_add_todo": ("ToDoの追加", "adding a to-do"),
    "tool_add_expense": ("支出の記録", "recording an expense"),
    "tool_complete_todo": ("ToDoの完了", "completing a to-do"),
    "tool_remove_shopping_item": ("買い物の削除", "removing from the shopping list"),
    "tool_remember": ("記憶する", "remembering"),
    "tool_open_panel": ("パネルを開く", "opening a panel"),
    "tool_list_segments": ("これまでの話題", "earlier topics"),
    "tool_load_segment": ("これまでの話題", "an earlier topic"),
    # panel actions
    "add": ("追加", "Add"),
    "add_item": ("買うものを追加", "Add an item"),
    "add_event": ("予定を追加", "Add an event"),
    "add_todo": ("ToDoを追加", "Add a to-do"),
    "tick": ("買った", "Bought"),
    "untick": ("まだ買っていない", "Not bought yet"),
    "checked_by": ("{who} が購入", "bought by {who}"),
    "complete": ("完了にする", "Mark done"),
    "reopen": ("未完了に戻す", "Reopen"),
    "done_by": ("{who} が完了", "done by {who}"),
    "delete": ("削除", "Delete"),
    "month": ("月", "Month"),
    "panel_400": ("入力を確認してください。", "Please check what you entered."),
    "panel_422": ("入力を確認してください。", "Please check what you entered."),
    "panel_401": (
        "ログインが切れました。ページを再読み込みしてください。",
        "You were signed out: reload the page.",
    ),
    "panel_403": ("ページが古くなりました。再読み込みしてください。", "The page is out of date: reload it."),
    "panel_404": (
        "見つかりません。もう一人が先に削除したのかもしれません。",
        "Not found: perhaps the other member deleted it a moment ago.",
    ),
    # cards
    "details": ("詳細", "Details"),
    "this_one": ("この項目", "this one"),
    "today": ("今日", "today"),
    "field_item": ("品目", "Item"),
    "field_title": ("件名", "Title"),
    "field_when": ("日時", "When"),
    "field_note": ("メモ", "Note"),
    "field_due": ("期限", "Due"),
    "field_amount": ("金額", "Amount"),
    "field_date": ("日付", "Date"),
    "field_fact": ("内容", "Fact"),
    "card_failed": ("実行できませんでした。", "It could not be carried out."),
    "why_approved": ("実行しました。", "Done."),
    "why_rejected": ("却下しました。", "Rejected."),
    "why_failed": ("実行できませんでした。", "It could not be carried out."),
    "why_not_owner": (
        "このカードは {owner} さんだけが判断できます。",
        "Only {owner} can decide on this card.",
    ),
    "why_expired": ("期限が切れています。もう一度頼んでください。", "This card has expired: ask again."),
    "why_running": ("いま実行しているところです。", "It is being carried out right now."),
    "why_interrupted": (
        "実行中に止まりました。やり直せます。",
        "It stopped while being carried out: retry it.",
    ),
    "why_already_decided": ("すでに{state}です({who}、{at})。", "Already {state} by {who} ({at})."),
    **DOMAIN_TEXT,
    **PICTURE_TEXT,
    **REPEAT_TEXT,
}


def choose(cookie: str | None, accept_language: str | None) -> Lang:
    """The cookie's language if valid, else the first of ja/en the browser asks for (ja by default)."""
    if cookie in LANGS:
        return "ja" if cookie == "ja" else "en"
    best: tuple[float, Lang] = (0.0, "ja")
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        base = tag.strip().lower().split("-")[0]
        if base not in LANGS:
            continue
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if quality > best[0]:
            best = (quality, "ja" if base == "ja" else "en")
    return best[1]


class Words:
    """``t("key", name=...)`` in one language, plus its date and money formats.

    Times are shown in ``zone`` (the household's time zone; None: the server's).
    """

    def __init__(self, lang: Lang, zone: tzinfo | None = None) -> None:
        self.lang = lang
        self.zone = zone

    def __call__(self, key: str, **values: object) -> str:
        pair = TEXT.get(key)
        if pair is None:
            return key
        text = pair[0] if self.lang == "ja" else pair[1]
        return text.format(**values) if values else text

    def pick(self, keys: list[str], prefix: str = "") -> dict[str, str]:
        """Some words for the page's script, placeholders such as ``{who}`` left in (and every word
        whose key starts with ``prefix``, when one is given)."""
        more = [k for k in TEXT if prefix and k.startswith(prefix)]
        return {key: self(key) for key in [*keys, *more]}

    def tools(self, names: list[str]) -> str:
        """What the butler's tools are doing, in words: "予定・買い物リスト"."""
        shown = dict.fromkeys(self.label("tool", n) for n in names)
        return ("・" if self.lang == "ja" else ", ").join(shown)

    def label(self, kind: str, value: object) -> str:
        """A stored word (a category, a source, a channel) in this language, else as it is."""
        key = f"{kind}_{value}"
        return self(key) if key in TEXT else str(value)

    def repeat(self, rule: dict[str, Any]) -> str:
        """A recurring to-do's rule (its JSON) in words: "毎週月・木" / "every Mon, Thu"."""
        found = Recurrence.loads(json.dumps(rule))
        return found.describe(self.lang) if found is not None else ""

    def yen(self, amount: int) -> str:
        return f"{amount:,}円" if self.lang == "ja" else f"¥{amount:,}"

    def month(self, value: str) -> str:
        """``YYYY-MM`` as "2026年11月" / "November 2026"."""
        year, _, month = value.partition("-")
        if not (year.isdigit() and month.isdigit() and 1 <= int(month) <= 12):
            return value
        if self.lang == "ja":
            return f"{int(year)}年{int(month)}月"
        return date(int(year), int(month), 1).strftime("%B %Y")

    def day(self, value: date | str | None) -> str:
        if value is None or value == "":
            return ""
        day = date.fromisoformat(value[:10]) if isinstance(value, str) else value
        if self.lang == "ja":
            return f"{day.month}月{day.day}日({_WEEKDAYS_JA[day.weekday()]})"
        return day.strftime("%a %d %b")

    def when(self, value: datetime | str | None) -> str:
        """A moment with its date in the household's zone; a wall-clock time (an event's) as it is."""
        if value is None or value == "":
            return ""
        if isinstance(value, str):
            if len(value) <= 10:
                return self.day(value)
            stamp = datetime.fromisoformat(value)
        else:
            stamp = value
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone(self.zone)
        return f"{self.day(stamp.date())} {stamp:%H:%M}"

    def span(self, start: str, end: str | None) -> str:
        """An event's time: "12月3日(木) 10:00–11:30", or two whole moments on different days."""
        if not end:
            return self.when(start)
        if end[:10] == start[:10] and len(end) > 10:
            return f"{self.when(start)}–{end[11:16]}"
        return f"{self.when(start)} – {self.when(end)}"

    @staticmethod
    def short(text: str, width: int) -> str:
        line = " ".join(text.split())
        return line if len(line) <= width else line[: width - 1] + "…"
