"""What the Settings page shows of the reminders (and the words the reminder pages use): below both
the settings routes and the reminder routes, so that neither imports the other."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from ._locale import words
from ._member import Member
from ._security import backend_of

WORDS = {
    "notifications": ("お知らせ", "Notifications"),
    "no_notifications": (
        "まだお知らせはありません。設定でリマインダーや朝のまとめをオンにできます。",
        "Nothing yet. Turn on reminders or the morning digest in Settings.",
    ),
    "late": ("遅れて送信", "sent late"),
    "status_web": ("アプリのみ", "in the app only"),
    "status_folded": ("朝のまとめに回しました", "held for the digest"),
    "status_digested": ("朝のまとめでお送りしました", "sent in the digest"),
    "status_pending": ("送信待ち", "waiting to send"),
    "status_failed": ("LINEに送れませんでした", "LINE refused it"),
    "reminders": ("リマインダーと朝のまとめ", "Reminders and morning digest"),
    "reminders_note": (
        "予定の前ややることの期限に、LINEとこのアプリでお知らせします。静かな時間にはLINEに送りません。",
        "Before events and when to-dos fall due, over LINE and in this app. No LINE pushes in quiet hours.",
    ),
    "reminders_on": ("リマインダーを受け取る", "Send me reminders"),
    "lead": ("何分前に", "Minutes before"),
    "digest_on": ("朝のまとめを受け取る", "Send me a morning digest"),
    "digest_at": ("まとめの時刻", "Digest time"),
    "quiet_from": ("静かな時間（開始）", "Quiet hours from"),
    "quiet_to": ("静かな時間（終了）", "Quiet hours until"),
    "pushes": ("今月のLINE送信: {used} / {budget} 通", "LINE pushes this month: {used} of {budget}"),
    "no_limit": ("上限なし", "no limit"),
}


def rt(lang: str) -> Any:
    def t(key: str, **values: object) -> str:
        pair = WORDS.get(key, (key, key))
        text = pair[0] if lang == "ja" else pair[1]
        return text.format(**values) if values else text

    return t


def reminder_context(request: Request, member: Member) -> dict[str, Any]:
    """What the settings page's reminder section shows."""
    reminders = backend_of(request).reminders
    used, budget = reminders.pushes()
    return {
        "reminders": reminders.settings.get(member.household, member.user),
        "pushes_used": used,
        "push_budget": budget,
        "rt": rt(words(request, member).lang),
    }
