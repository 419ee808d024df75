"""What the butler says when it speaks first, in the member's language (Japanese or English).

The member's language is the one their LINE account last wrote in (``line_links.lang``),
Japanese when unknown. Texts stay short: a reminder is one line, the digest a few sections,
and LINE's limit of 5,000 characters a message is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

__all__ = ["MAX_TEXT", "digest_text", "late_note", "reminder_text"]

MAX_TEXT = 5000  # LINE: characters in one text message
_WEEKDAYS_JA = "月火水木金土日"

_WORDS = {
    "ja": {
        "event": "⏰ {when} {title}",
        "todo": "✅ 期限 {when}: {title}",
        "anniversary": "🎉 {when}は{title}",
        "other": "🔔 {when} {title}",
        "late": "（遅れてのお知らせです。本来 {when} にお送りする予定でした）",
        "hello": "おはようございます。{day}のお知らせです。",
        "events": "📅 今日の予定",
        "due": "✅ 期限の来たやること",
        "routine": "🗑 今日のゴミの日・くり返しのやること",
        "recurring": "🔁 {when} {title}",
        "ahead": "🗓 もうすぐ",
        "shopping": "🛒 買い物リスト",
        "folded": "🔔 今月の送信枠が少ないため、まとめてお知らせします",
        "nothing": "今日の予定ややることはありません。",
        "more": "…ほか {n} 件",
        "all_day": "終日",
    },
    "en": {
        "event": "⏰ {when} {title}",
        "todo": "✅ Due {when}: {title}",
        "anniversary": "🎉 {when}: {title}",
        "other": "🔔 {when} {title}",
        "late": "(sent late: this was due at {when})",
        "hello": "Good morning. Here is {day}.",
        "events": "📅 Today",
        "due": "✅ Due to-dos",
        "routine": "🗑 Today's garbage days and routines",
        "recurring": "🔁 {when} {title}",
        "ahead": "🗓 Coming up",
        "shopping": "🛒 Shopping list",
        "folded": "🔔 Held back to save this month's pushes",
        "nothing": "Nothing on the calendar or due today.",
        "more": "… and {n} more",
        "all_day": "all day",
    },
}
_SECTION_MAX = 15


def _words(lang: str) -> dict[str, str]:
    return _WORDS.get(lang, _WORDS["ja"])


def _when(at: str, lang: str) -> str:
    """``2026-12-03T10:00`` → ``12/3 10:00``; a date alone → ``12/3``."""
    day = date.fromisoformat(at[:10])
    text = f"{day.month}/{day.day}"
    return f"{text} {at[11:16]}" if len(at) > 10 else text


def reminder_text(source: str, title: str, at: str, lang: str) -> str:
    template = _words(lang).get(source, _words(lang)["other"])
    return template.format(when=_when(at, lang), title=title)


def late_note(fire_local: str, lang: str) -> str:
    return _words(lang)["late"].format(when=_when(fire_local, lang))


def _day(day: date, lang: str) -> str:
    if lang == "en":
        return day.strftime("%A %-d %B")
    return f"{day.month}月{day.day}日（{_WEEKDAYS_JA[day.weekday()]}）"


def _section(head: str, lines: Sequence[str], lang: str) -> list[str]:
    if not lines:
        return []
    shown = [f"・{line}" for line in lines[:_SECTION_MAX]]
    if len(lines) > _SECTION_MAX:
        shown.append(_words(lang)["more"].format(n=len(lines) - _SECTION_MAX))
    return ["", head, *shown]


def digest_text(
    day: date,
    lang: str,
    *,
    events: Sequence[tuple[str, str]],
    due: Sequence[tuple[str, str]],
    routine: Sequence[tuple[str, str]] = (),
    ahead: Sequence[tuple[str, str]],
    shopping: Sequence[str],
    folded: Sequence[str],
) -> str:
    """The morning digest: ``events``/``due``/``routine``/``ahead`` are (local time text, title) pairs."""
    w = _words(lang)

    def timed(pairs: Sequence[tuple[str, str]], *, clock: bool) -> list[str]:
        out = []
        for at, title in pairs:
            label = at[11:16] if clock and len(at) > 10 else (w["all_day"] if clock else _when(at, lang))
            out.append(f"{label} {title}")
        return out

    lines = [w["hello"].format(day=_day(day, lang))]
    lines += _section(w["events"], timed(events, clock=True), lang)
    lines += _section(w["due"], timed(due, clock=False), lang)
    lines += _section(w["routine"], [f"{at[11:16]} {title}".strip() for at, title in routine], lang)
    lines += _section(w["ahead"], timed(ahead, clock=False), lang)
    lines += _section(w["shopping"], list(shopping), lang)
    lines += _section(w["folded"], list(folded), lang)
    if not (events or due or routine or ahead or shopping or folded):
        lines += ["", w["nothing"]]
    text = "\n".join(lines)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"
