"""What the butler says on LINE by itself (not the model's answers), in Japanese and English.

Japanese unless the member is known to write English: ``language_of`` guesses from a
message (any kana or kanji: Japanese; Latin letters only: English), and a linked
account remembers the last language its member wrote in, for replies to button taps.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Lang", "asks_password_reset", "language_of", "say"]

Lang = Literal["ja", "en"]

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
_LATIN = re.compile(r"[A-Za-z]")

WORDS: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "not_linked": (
        "はじめまして、執事です。お使いいただくには、ウェブアプリの「記憶」ページ（または "
        "`shitsuji line link あなたのID`）でリンクコードを発行して、このトークに送ってください。",
        "Hello, I am the household butler. To start, get a link code in the web app (Memories page, "
        "or `shitsuji line link YOUR_ID`) and send it here.",
    ),
    "linked": (
        "{member} さん（{household}）としてつながりました。何でも話しかけてください。",
        "Linked as {member} of {household}. Talk to me any time.",
    ),
    "bad_code": (
        "そのコードは使えません（期限切れ・使用済み・入力違い）。新しいコードを発行してください。",
        "That code does not work (expired, used or mistyped): get a new one.",
    ),
    "sticker": (
        "スタンプありがとうございます。ご用件は文字で送ってくださいね。",
        "Thanks for the sticker! Please send what you need as text.",
    ),
    "picture_said": (
        "（写真を送りました。レシートなら支出に、リストなら買い物リストに追加を提案してください。）",
        "(I sent a photo. If it is a receipt, propose the expense; if it is a list, propose the items.)",
    ),
    "picture_refused": (
        "写真を読み込めませんでした（JPEG・PNG・GIF・WebP、5MBまで）。もう一度送るか、文字で送ってください。",
        "I could not read that picture (JPEG, PNG, GIF or WebP, up to 5 MB). Please send it again or as text.",
    ),
    "not_text": (
        "ありがとうございます。今はテキストのメッセージだけお手伝いできます。",
        "Thank you. For now I can only help with text messages.",
    ),
    "follow": (
        "友だち追加ありがとうございます。執事です。",
        "Thanks for adding me. I am the household butler.",
    ),
    "join": (
        "招待ありがとうございます。リンク済みの家族の発言にお答えします（リンクは一対一のトークで）。",
        "Thanks for inviting me. I answer linked household members here (link in a one-to-one chat).",
    ),
    "link_in_private": (
        "リンクコードは一対一のトークで送ってください。",
        "Please send link codes in a one-to-one chat with me.",
    ),
    "confirm": ("{summary}\nよろしいですか？", "{summary}\nGo ahead?"),
    "card_alt": ("確認: {summary}", "Please confirm: {summary}"),
    "approve": ("承認", "Approve"),
    "reject": ("却下", "Reject"),
    "approved": ("承認しました: {summary}", "Approved: {summary}"),
    "rejected": ("却下しました: {summary}", "Rejected: {summary}"),
    "failed": ("実行できませんでした: {summary}（{result}）", "It could not be done: {summary} ({result})"),
    "not_yours": (
        "このカードはあなたのものではないため、何も変更していません。",
        "This card is not yours, so nothing was changed.",
    ),
    "already": (
        "このカードはすでに決定済みです（{status}）。何も変更していません。",
        "This card was already decided ({status}); nothing was changed.",
    ),
    "expired": (
        "このカードは期限切れです。何も変更していません。もう一度お願いしてください。",
        "This card has expired; nothing was changed. Please ask again.",
    ),
    "unknown_card": (
        "このボタンは使えません。何も変更していません。",
        "This button is not valid; nothing was changed.",
    ),
    "turn_failed": (
        "すみません、いまはお答えできませんでした。メッセージは受け取っています。もう一度送ってください。",
        "Sorry, I could not answer just now. Your message is kept: please send it again.",
    ),
    "no_model": (
        "チャットのモデルがまだ設定されていないため、お答えできません。",
        "Chat is not set up yet (no model is configured), so I cannot answer.",
    ),
    "open_app": (
        "「{summary}」は外部に送る操作なので、アプリを開いて確認してください。",
        "“{summary}” sends something outside the household: open the app to confirm it.",
    ),
    "too_long": (
        "メッセージが長すぎます。短くして送ってください。",
        "That message is too long: please shorten it.",
    ),
    "too_many_codes": (
        "コードの入力違いが続いたため、しばらく受け付けません。{minutes}分ほどしてからお試しください。",
        "Too many wrong codes: please wait about {minutes} minutes and try again.",
    ),
    "reset_in_private": (
        "パスワードの再設定は、執事との一対一のトークで「パスワード再設定」と送ってください。",
        'To reset your password, send "reset password" in a one-to-one chat with me.',
    ),
    "reset_code": (
        "ウェブアプリのパスワード再設定コード: {code}\n"
        "サインイン画面の「パスワードを忘れた」で、{household} の {member} として、このコードと新しいパスワードを"
        "入力してください（{minutes}分間・1回限り）。このコードは誰にも教えないでください。"
        "心当たりがなければ無視してください。",
        "Your web app password reset code: {code}\n"
        'On the sign-in page choose "Forgot your password?" and enter it as {member} of {household} with '
        "a new password ({minutes} minutes, once). Never share this code. If you did not ask, ignore it.",
    ),
    "shopping": ("買い物リスト", "Shopping list"),
    "shopping_empty": ("買い物リストは空です。", "The shopping list is empty."),
    "anniversaries": ("記念日", "Anniversaries"),
    "anniversaries_empty": ("記念日はまだありません。", "No anniversaries yet."),
    "today": ("今日", "today"),
    "days_left": ("あと{days}日", "in {days} days"),
    "status_approved": ("承認済み", "approved"),
    "status_rejected": ("却下済み", "rejected"),
    "status_failed": ("失敗", "failed"),
    "status_running": ("実行中", "running"),
}


_RESET = re.compile(
    r"^\s*(?:パスワード(?:の)?(?:再設定|リセット|を?忘れ(?:た|ました)?)|"
    r"(?:reset|forgot)\s+(?:my\s+)?password|password\s+reset)\s*[。.!！?？]?\s*$",
    re.IGNORECASE,
)


def asks_password_reset(text: str) -> bool:
    """Whether a message is only the request for a web password reset code (not a sentence about one)."""
    return _RESET.match(text) is not None


def say(lang: Lang, key: str, **values: object) -> str:
    ja, en = WORDS[key]
    return (en if lang == "en" else ja).format(**values)


def language_of(text: str) -> Lang | None:
    """Japanese if the text has kana or kanji, English if it has only Latin letters, else unknown."""
    if _JAPANESE.search(text):
        return "ja"
    if _LATIN.search(text):
        return "en"
    return None
