"""Questions about time: the span a question asks about, and the spans a memory is about.

"What did we buy last month?", 「先週どこに行った？」, 「去年の夏は何をした？」 name a span of
the asker's calendar: last month is the calendar month before this one **in the asker's
time zone** (at 00:30 on 1 December in Tokyo it is November, though in UTC it is still
November 30th's month). ``asked_span`` turns such words into a ``[start, end)`` pair of
aware datetimes, or None when the question names no span. A trailing span ("the past three
months", "in the last two weeks", ここ3ヶ月, 過去2週間, ここ数日) ends with the asker's today;
"the last day of the trip" is none (without a count, "last" needs "in/over the").

A memory can match a span two ways, and both are kept: when it was said (``created_at``,
what the store records for every row, in the zone it was said in: ``_said.said_zone``) and
what dates it talks about ("the plumber comes on 2026-12-04", "we went to Kyoto in November",
「昨日、新しいソファが届いた」 said on 3 November is about 2 November). The second is read
from the memory's own text with the same rules, relative to when it was said
(``mentioned_spans``), when it is written: the row keeps them (``_about``; a row from before
that is read from its text here, ``in_span``). (Indexing those days as keywords too, as
the said day is, was measured and not shipped: no dev question changed, issue 23 lo23d.)

Recall then puts the candidates inside the span first (``favour_span``; not a filter — a
question that says "last month" about something said earlier still finds it). Words asking for the
present ("lately", "recently", "these days", 最近, この頃, 今どこに…) are ``_recall.ASKS_FOR_NOW``'s:
newer facts first, not a span — "what do I drink lately?" wants the latest answer, however long
ago it was said, and a span would drop nothing but only reorder near-equals anyway.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from calendar import monthrange
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from itertools import chain
from typing import Any, Final

from ._advice import asks_for_advice
from ._recall import RecallWeights
from ._records import Hit
from ._said import ZONE_KEY, said_zone, zone_name

Span = tuple[datetime, datetime]  # [start, end), aware

_SEASONS: Final = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_JA_SEASONS: Final = {"春": 3, "夏": 6, "秋": 9, "冬": 12}
_MONTHS: Final = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_NUM: Final = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|[一二三四五六七八九十]+)"
_WORD_NUMS: Final = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_KANJI_NUMS: Final = "一二三四五六七八九"
_WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_JA_WEEKDAYS: Final = "月火水木金土日"  # 月曜 Monday … 日曜 Sunday: 先週の火曜 (and ``_values``)

_FEW: Final = r"few|several|couple of|数"


def _kana(word: str) -> str:
    """A time word written in hiragana, as a word: not inside another (きょうけんびょう is rabies,
    きょうだい siblings, きょうと Kyoto), so kana before it, or kana after it other than a particle
    (きょうは, きのうの, ゆうべに, きょうまで), is another word."""
    return rf"(?<![ぁ-ゖァ-ヺー]){word}(?=[はのもにまでが]|[^ぁ-ゖ]|$)"


_RELATIVE: Final = re.compile(
    # "the past three months", "the last 2 weeks", ここ3ヶ月, 過去2週間, この一年: up to today
    # ("the last day of the trip" is no span: without a count, "last" needs in/over/during the)
    rf"(?P<trail>\b(?:(?:in|over|during|for|within)\s+the\s+(?:past|last)|(?:the\s+)?past"
    rf"|last(?=\s+(?:\d|{_NUM[1:-1]}|{_FEW})\s))"
    rf"\s+(?:(?P<tn>{_NUM[1:-1]}|{_FEW})\s+)?(?P<tunit>day|week|month|year)s?\b"
    rf"|(?:ここ|過去|この|直近|最近)\s*(?P<jtn>\d+|[一二三四五六七八九十]+|数)\s*"
    r"(?P<jtunit>日間|日|週間|週|か月|ヶ月|ヵ月|カ月|ケ月|年間|年))"
    rf"|(?P<dby>the day before yesterday|一昨日|{_kana('おととい')})"
    rf"|(?P<yesterday>\byesterday\b|\blast night\b|昨日|{_kana('きのう')}|昨夜|昨晩|{_kana('ゆうべ')})"
    rf"|(?P<today>\btoday\b|\bthis morning\b|\btonight\b|今日|{_kana('きょう')}|今朝|今夜|今晩)"
    r"|(?P<lastwe>\blast weekend\b|先週末)"
    r"|(?P<lastwd>\blast (?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    rf"|先週の(?P<jwd>[{_JA_WEEKDAYS}])曜)"
    r"|(?P<wbl>the week before last|先々週)"
    r"|(?P<lastweek>\blast week\b|先週)"
    r"|(?P<thisweek>\bthis week\b|今週)"
    r"|(?P<mbl>the month before last|先々月)"
    r"|(?P<lastmonth>\blast month\b|先月)"
    r"|(?P<thismonth>\bthis month\b|今月)"
    r"|(?P<season>\b(?P<which>last|this)\s+(?P<sname>spring|summer|autumn|fall|winter)\b"
    r"|(?P<jwhich>去年|昨年|今年)の(?P<jname>[春夏秋冬]))"
    r"|(?P<lastyear>\blast year\b|去年|昨年)"
    r"|(?P<thisyear>\bthis year\b|今年)"
    rf"|(?P<ago>\b{_NUM}\s+(?P<unit>day|week|month|year)s?\s+ago\b)"
    rf"|(?P<jago>{_NUM}\s*(?P<junit>日|週間|か月|ヶ月|ヵ月|カ月|年)前)",
    re.IGNORECASE,
)
_ISO: Final = re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b")
_JA_DATE: Final = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})日")
# a month named without a day: "in November", "November 2025", 「11月に」, 「2025年11月」 (not 11月4日,
# and not 3ヶ月, "three months"); the name capitalised, so the verb "may" is never May
_EN_MONTH: Final = re.compile(
    r"\b(?:(?:in|during|since|until|through|(?<!\d(?:st|nd|rd|th)\s)of|early|mid|late|last|this|next)\s+(?P<a>[A-Z][a-z]{2,8})\b(?!\s+\d{1,2}\b)"
    r"(?:,?\s+(?P<ay>\d{4}))?|(?P<b>[A-Z][a-z]{2,8})\s+(?P<by>\d{4})\b)"
)
_JA_MONTH: Final = re.compile(r"(?:(\d{4})年)?(?<!\d)(\d{1,2})月(?!\s*\d{1,2}日)")
# a day and a month's name, either way round: "24 November", "24th of Nov", "Nov. 24th, 2026". Only a
# month's name is tried as one: any word before a number was once ("booked for 24 November": "for 24"
# failed the month lookup and took the "24" that "24 November" needed)
_MONTH_NAME: Final = "|".join(sorted(_MONTHS, key=len, reverse=True))
_EN_DATE: Final = re.compile(
    rf"\b(?=\d|[A-Za-z]{{3,9}}\.?\s+\d)"  # names tried only beside a number, in any case: ~1.1x the cost
    rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?((?i:{_MONTH_NAME}))\b\.?"  # of any word there
    rf"|((?i:{_MONTH_NAME}))\b\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b),?(?:\s+(\d{{4}}))?\b",
)
# A sentence about what is still to come ("we will …", "going to", "planning to", "next …", 予定, つもり,
# 来月, 今度): a month or a day it names without a year is the next such one, not the latest past one
_AHEAD: Final = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:s|ning)? (?:to|on)|planning|intends? to|hope to|next(?! to)"
    r"|upcoming|coming up|due (?:in|on))\b|'ll\b"
    r"|予定|つもり|来週|来月|来年|今度|これから",
    re.IGNORECASE,
)
# where the words that date a month end: a sentence, or in English a clause (", but … on my next flight"
# says nothing of "on February 10th" before it; Japanese puts 予定 last, after any 、)
_SENTENCE_END: Final = re.compile(r"[.!?;。！？\n]|,\s")


def _count(raw: str) -> int:
    raw = raw.lower()
    if raw.isdigit():
        return int(raw)
    if raw in _WORD_NUMS:
        return _WORD_NUMS[raw]
    if raw == "十":
        return 10
    tens, _, ones = raw.partition("十")
    if "十" in raw:
        return (_KANJI_NUMS.index(tens) + 1 if tens else 1) * 10 + (
            _KANJI_NUMS.index(ones) + 1 if ones else 0
        )
    return _KANJI_NUMS.index(raw) + 1 if raw in _KANJI_NUMS else 1


def _day(d: date, zone: tzinfo) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=zone)


def _days(start: date, days: int, zone: tzinfo) -> Span:
    return _day(start, zone), _day(start + timedelta(days=days), zone)


def _month(year: int, month: int, months: int, zone: tzinfo) -> Span:
    end_year, end_month = divmod(month - 1 + months, 12)
    return _day(date(year, month, 1), zone), _day(date(year + end_year, end_month + 1, 1), zone)


def _months_back(today: date, back: int) -> tuple[int, int]:
    year, month = divmod(today.year * 12 + today.month - 1 - back, 12)
    return year, month + 1


def _season(year: int, start_month: int, zone: tzinfo) -> Span:
    return _month(year, start_month, 3, zone)  # winter: December and the two months after it


def _relative(m: re.Match[str], today: date, zone: tzinfo) -> Span | None:
    """The span one match of ``_RELATIVE`` names, seen from ``today``."""
    g = m.groupdict()
    monday = today - timedelta(days=today.weekday())
    simple: dict[str, Span] = {
        "lastwe": _days(monday - timedelta(days=2), 2, zone),  # Saturday and Sunday before this week
        "dby": _days(today - timedelta(days=2), 1, zone),
        "yesterday": _days(today - timedelta(days=1), 1, zone),
        "today": _days(today, 1, zone),
        "wbl": _days(monday - timedelta(days=14), 7, zone),
        "lastweek": _days(monday - timedelta(days=7), 7, zone),
        "thisweek": _days(monday, 7, zone),
        "mbl": _month(*_months_back(today, 2), 1, zone),
        "lastmonth": _month(*_months_back(today, 1), 1, zone),
        "thismonth": _month(today.year, today.month, 1, zone),
        "lastyear": _month(today.year - 1, 1, 12, zone),
        "thisyear": _month(today.year, 1, 12, zone),
    }
    for name, span in simple.items():
        if g[name]:
            return span
    if g["trail"]:
        return _trailing(today, g["tn"] or g["jtn"], g["tunit"] or g["jtunit"], zone)
    if g["lastwd"]:
        if g["jwd"]:  # 先週の火曜: the Tuesday of last week
            return _days(monday - timedelta(days=7) + timedelta(days=_JA_WEEKDAYS.index(g["jwd"])), 1, zone)
        back = (today.weekday() - _WEEKDAYS.index(g["wd"].lower())) % 7 or 7  # the latest before today
        return _days(today - timedelta(days=back), 1, zone)
    if g["season"]:
        start = _SEASONS[g["sname"].lower()] if g["sname"] else _JA_SEASONS[g["jname"]]
        if (g["which"] or "").lower() == "last":  # "last summer": the latest one that has ended
            year = today.year  # (asked in December 2026, 2026's; 去年の夏 is 2025's)
            while _season(year, start, zone)[1].date() > today:
                year -= 1
            return _season(year, start, zone)
        return _season(today.year - (1 if g["jwhich"] in ("去年", "昨年") else 0), start, zone)
    n = _count(m.group(_NUM_GROUP_AGO) or m.group(_NUM_GROUP_JAGO) or "1")
    unit = (g["unit"] or g["junit"] or "").lower()
    if unit in ("day", "日"):
        return _days(today - timedelta(days=n), 1, zone)
    if unit in ("week", "週間"):
        return _days(today - timedelta(days=7 * n + 3), 7, zone)  # the week around that day
    if unit in ("year", "年"):
        return _month(today.year - n, 1, 12, zone)
    return _month(*_months_back(today, n), 1, zone)


def _trailing(today: date, count: str | None, unit: str, zone: tzinfo) -> Span:
    """The last ``count`` days/weeks/months/years up to the end of today ("the past 3 months", ここ3ヶ月).

    Vague counts (few, several, 数) are read as three; no count ("the past month") as one."""
    n = (
        3
        if count is not None and count.lower() in ("few", "several", "couple of", "数")
        else _count(count or "1")
    )
    if count is not None and count.lower() == "couple of":
        n = 2
    unit = unit.lower()
    end = _day(today + timedelta(days=1), zone)
    if unit in ("day", "日", "日間"):
        return _day(today - timedelta(days=n - 1), zone), end
    if unit in ("week", "週", "週間"):
        return _day(today - timedelta(days=7 * n), zone), end
    months = 12 * n if unit in ("year", "年", "年間") else n
    year, month = _months_back(today, months)
    return _day(date(year, month, min(today.day, monthrange(year, month)[1])), zone), end


# Every match of ``_RELATIVE`` holds one of these words, so the pattern need be tried only near
# them (``_relative_matches``): tried at every position of a 3,200-character turn it cost ~3.6 ms
# (issue 23, sp28). Each word's lead is how many characters other than white space, digits and
# kanji numerals can come before it in a match whose earliest such word it is ("the month before
# last": 14; "within the past": 9; "seven months ago": 11; ここ数ヶ月 and "sevenヶ月前": 6 before 月;
# 過去: 1); a word that starts its matches has none.
_ANCHOR: Final = re.compile(
    r"last|past|yesterday|ago|today|tonight|this|[日週月年昨今去先前]|おととい|きのう|ゆうべ|きょう",
    re.IGNORECASE,
)
_LEADS: Final = {"last": 14, "yesterday": 12, "ago": 11, "past": 9, "去": 1}
_LEAD_MAX: Final = 14  # a word spelt with case-folding look-alikes ("laſt") is not in ``_LEADS``
_LEADS.update(dict.fromkeys("日週月年", 6))
_LEADS.update(
    dict.fromkeys(
        ["today", "tonight", "this", "昨", "今", "先", "前", "おととい", "きのう", "ゆうべ", "きょう"], 0
    )
)
_FREE: Final = frozenset("一二三四五六七八九十")


def _lead_start(text: str, at: int, lead: int) -> int:
    """The earliest start a match can have whose earliest anchor word starts at ``at``."""
    while at > 0:
        c = text[at - 1]
        if not (c.isspace() or c.isdecimal() or c.isdigit() or c in _FREE):
            if lead == 0:
                break
            lead -= 1
        at -= 1
    return at


def _relative_matches(text: str) -> Iterator[re.Match[str]]:
    """``_RELATIVE.finditer(text)``, trying the pattern only from the positions a match can start
    at: from an anchor word's lead to its end. The first anchor word that ends after a match's
    start either starts before it or is the match's earliest, within its lead."""
    done = 0  # every match starting before this was found
    for word in _ANCHOR.finditer(text):
        if word.end() <= done:
            continue
        at = max(done, _lead_start(text, word.start(), _LEADS.get(word.group().lower(), _LEAD_MAX)))
        while at < word.end():
            if (m := _RELATIVE.match(text, at)) is None:
                at += 1
            else:
                yield m
                at = done = m.end()
        done = max(done, word.end())


# the unnamed number groups of the two "ago" forms (named groups cannot repeat in one pattern)
_NUM_GROUP_AGO: Final = _RELATIVE.groupindex["unit"] - 1
_NUM_GROUP_JAGO: Final = _RELATIVE.groupindex["junit"] - 1


# A question that asks for advice ("can you recommend a show to watch tonight?", 「今夜観る映画の
# おすすめは？」, "what should I cook this week?": ``_advice.asks_for_advice``) names the time of what it
# plans, not of what was said.
# the spans that hold today and what is still to come: the only ones a plan can be made for
_NOW_OR_LATER: Final = ("today", "thisweek", "thismonth", "thisyear")


def _plans_ahead(m: re.Match[str], asks_advice: bool) -> bool:
    """Whether the time word ``m`` qualifies a planned activity rather than when facts were said:
    the question asks for advice, and the word names a span that holds today or later (tonight,
    this week, this summer, 今夜, 今週, 今年の夏) — "yesterday" in an advice question still is a span."""
    g = m.groupdict()
    this_season = g["season"] is not None and ((g["which"] or "").lower() == "this" or g["jwhich"] == "今年")
    return asks_advice and (this_season or any(g[name] for name in _NOW_OR_LATER))


def asked_span(query: str, now: datetime, zone: tzinfo = UTC) -> Span | None:
    """The span of the asker's calendar the question names ("last month", 先週, 去年の夏), or None.

    A time word that qualifies what the asker plans ("a show to watch tonight", 今夜観る映画の
    おすすめ: ``_plans_ahead``) is no span: the answer is what they like, said whenever. Until
    issue 23 (sg26) "tonight" put everything said that evening first for such a question (pooled
    LongMemEval dev: its answer session, said two days before, was 27th).

    A month named without a day ("in June", 「3月に」) is no span yet: read as one (issue 23, tw29;
    the latest such month, or the next in a question about what is to come) it gained 4 of the
    8 named-month questions of ``bench time`` but lost one pooled LongMemEval dev question (its
    answer sessions are dated in May, the question says "in January and March") and LoCoMo dev
    turn recall 0.8235 -> 0.8215 (docs/benchmarks.md)."""
    found = span_words(query)
    return None if found is None else span_named(found, now, zone)


def span_words(query: str) -> re.Match[str] | None:
    """The time words of ``query`` that name its span (``asked_span``), or None."""
    advice = asks_for_advice(query)
    return next((m for m in _relative_matches(query) if not _plans_ahead(m, advice)), None)


def span_named(found: re.Match[str], now: datetime, zone: tzinfo = UTC) -> Span | None:
    """The span the time words ``found`` (``span_words``) name, seen from ``now`` in ``zone``."""
    return _made(_relative, found, now.astimezone(zone).date(), zone)


def without_span(query: str) -> str:
    """``query`` without the words that name its span: "what did I buy last week?" -> "what did I buy ?"."""
    found = span_words(query)
    return query if found is None else without_words(found)


def without_words(found: re.Match[str]) -> str:
    """The text ``found`` was found in (``span_words``), without it."""
    return f"{found.string[: found.start()]} {found.string[found.end() :]}"


def mentioned_spans(text: str, said: datetime, zone: tzinfo = UTC) -> Iterator[Span]:
    """The spans a memory's text is about: relative words seen from when it was ``said``, and dates."""
    today = said.astimezone(zone).date()
    clauses = Clauses(text)
    found = chain(
        (_made(_relative, m, today, zone) for m in _relative_matches(text)),
        (_made(_days, d, 1, zone) for d in _dates(clauses, today)),
        (_made(_month, y, n, 1, zone) for y, n in _named_months(clauses, today)),
    )
    yield from (span for span in found if span is not None)


def _made(make: Callable[..., Span | None], *args: Any) -> Span | None:
    """``make(*args)``, or None past the calendar's ends ("December 9999", "in March 0000", "10000 years
    ago": a memory holding one failed every span question's recall that met it, until issue 23 dt29)."""
    try:
        return make(*args)
    except (OverflowError, ValueError):
        return None


def _named_months(clauses: Clauses, today: date) -> Iterator[tuple[int, int]]:
    """Months named without a day (``_EN_MONTH``, ``_JA_MONTH``); without a year, the latest such
    month up to ``today``'s ("in November" said in January is last year's November), or in a
    sentence about what is to come (``_AHEAD``), the next from ``today``'s on (「11月に京都へ行く予定」
    and "a wedding in November we will go to", said in October, are this November)."""
    for m, year, month in _month_words(clauses.text):
        yield _year_of(year, month, today, clauses.ahead(m.start())), month


def _month_words(text: str) -> Iterator[tuple[re.Match[str], str | None, int]]:
    """The words of each month named without a day, its year as written (or None), and its number."""
    for m in _EN_MONTH.finditer(text):
        name, year = (m.group("a"), m.group("ay")) if m.group("a") else (m.group("b"), m.group("by"))
        month = _MONTHS.get(name.lower())
        if month is not None:
            yield m, year, month
    for m in (
        _JA_MONTH.finditer(text) if "月" in text else ()
    ):  # the scan costs as much as ``_RELATIVE``'s now
        if 1 <= (month := int(m.group(2))) <= 12:
            yield m, m.group(1), month


class Clauses:
    """One text's sentences (clauses in English), to tell of each date it names whether its sentence is
    about what is still to come (``ahead``).

    Until issue 23 (rb30) each date scanned the text's sentence ends from its start and its sentence
    for ``_AHEAD``'s words: O(n·m) for a text of n characters naming m dates. Now the ends are found
    once, each date's sentence by bisection, and each sentence searched once."""

    __slots__ = ("_ahead", "_ends", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None  # where ``_SENTENCE_END``'s matches over the text start
        self._ends: list[int] = []  # and end (both increasing: they do not overlap)
        self._ahead: dict[tuple[int, int], bool] = {}  # by sentence: its ``_AHEAD`` search

    def ahead(self, at: int) -> bool:
        """Whether the sentence (the clause in English) around ``text[at]`` is about what is still to
        come (``_AHEAD``): the text from the last sentence end before ``at`` to the first at or after it."""
        text = self.text
        if self._starts is None:
            found = list(_SENTENCE_END.finditer(text))
            self._starts, self._ends = [m.start() for m in found], [m.end() for m in found]
        starts, ends = self._starts, self._ends
        # the last end of a match within ``text[:at]`` (a scan stopped at ``at`` finds the same matches)
        before = bisect_right(ends, at)
        start = ends[before - 1] if before else 0
        after = bisect_left(starts, at)
        if after and ends[after - 1] > at:  # a match across ``at`` (",\n"): a scan from ``at`` differs
            found_end = _SENTENCE_END.search(text, at)
            end = len(text) if found_end is None else found_end.start()
        else:
            end = starts[after] if after < len(starts) else len(text)
        if (ahead := self._ahead.get((start, end))) is None:
            ahead = self._ahead[start, end] = _AHEAD.search(text, start, end) is not None
        return ahead


def _year_of(year: str | None, month: int, today: date, ahead: bool = False) -> int:
    if year is not None:
        return int(year)
    if ahead:
        return today.year if month >= today.month else today.year + 1
    return today.year if month <= today.month else today.year - 1


def _dates(clauses: Clauses, today: date) -> Iterator[date]:
    """Calendar dates written out: 2026-12-04, 2026/12/4, 12月4日, 2026年12月4日, 4 December, Dec 4th 2026.

    A day without a year is this year's, or in a sentence about what is to come (``_AHEAD``) the
    next such day from ``today`` on ("we will fly home on 4 January", said in December, is next year's)."""
    text = clauses.text
    for m in _ISO.finditer(text):
        yield from _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for m in _JA_DATE.finditer(text) if "月" in text else ():
        yield from _this_or_next(m.group(1), int(m.group(2)), int(m.group(3)), today, clauses, m.start())
    for m in _EN_DATE.finditer(text):
        day, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        yield from _this_or_next(m.group(5), _MONTHS[name.lower()], int(day), today, clauses, m.start())


def _this_or_next(
    year: str | None, month: int, day: int, today: date, clauses: Clauses, at: int
) -> Iterator[date]:
    if year is not None:
        yield from _valid(int(year), month, day)
        return
    ahead = clauses.ahead(at) and (month, day) < (today.month, today.day)
    yield from _valid(today.year + (1 if ahead else 0), month, day)


def _valid(year: int, month: int, day: int) -> Iterator[date]:
    try:
        yield date(year, month, day)
    except ValueError:
        return


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def in_span(hit: Hit, span: Span, zone: tzinfo = UTC) -> bool:
    """Whether the memory was said inside ``span`` or talks about a day inside it.

    Its "yesterday" is the day before the day it was said in the speaker's zone (kept with it,
    ``_said.said_zone``); a memory that kept none is read in the asker's ``zone``. The spans its
    row holds (``Memory.about``, made in its own zone when written: ``_about``) are read instead of
    its text when they are that zone's: it kept one, or it kept none and the asker's is UTC's."""
    memory = hit.memory
    kept = ZONE_KEY in memory.provenance
    known = span_known(span, zone)(memory.created_at, memory.about, kept)
    if known is not None:
        return known
    own = said_zone(memory.provenance) if kept else zone
    return any(_overlaps(span, s) for s in mentioned_spans(memory.content, memory.created_at, own))


def span_known(
    span: Span, zone: tzinfo = UTC
) -> Callable[[datetime, tuple[tuple[int, int], ...] | None, bool], bool | None]:
    """``in_span`` for a memory said at ``said`` whose row holds the spans ``about`` (None: not stored by
    this code's rules) and kept a zone of its own or not (``kept``), asked in ``zone`` — or None when
    only its text can tell (recall's bounds know these facts of a row before reading it: ``_row_facts``)."""
    start, end = span
    after, before = start.timestamp(), end.timestamp()
    utc = _is_utc(zone)

    def known(said: datetime, about: tuple[tuple[int, int], ...] | None, kept: bool) -> bool | None:
        if start <= said < end:
            return True
        if about is not None and (kept or utc):
            return any(a < before and after < b for a, b in about)
        return None

    return known


def _is_utc(zone: tzinfo) -> bool:
    """Whether ``zone`` draws UTC's days (what ``_said.said_zone`` gives a memory that kept no zone)."""
    return zone is UTC or zone_name(zone) in ("UTC", "Etc/UTC", "UTC+00:00")


def favour_span(
    hits: Sequence[Hit],
    span: Span,
    w: RecallWeights,
    zone: tzinfo = UTC,
    holds: Callable[[Hit], bool] | None = None,
) -> list[Hit]:
    """The hits inside ``span`` first, each group in its own order; nothing is dropped.

    The question names the span, so what was said in it or is about a day or month in it answers
    it (a fact that names no date and was said later still follows). One exception keeps a
    misread or empty span from burying the answer: an in-span hit that holds **none of the
    question's words, its time words aside** (``holds``: whether a hit holds one of the terms of
    ``without_span``), is only in the span — it goes above an outside hit unless that
    one holds some of them and is at least as close in meaning (cosine; a hit the vector search
    did not list is the furthest), and then just below the lowest such hit above it. No constant.

    Until issue 23 (lo23d) an in-span hit went only above outside hits that matched about as
    well (``_recall.about_as_well``): on pooled LongMemEval dev that left "the life event ... a
    week ago" sixth, and in-span first gained 2 of its 14 span questions. Spans first was then
    absolute (``holds=None`` still is): ja27 met ナオは去年の夏に車の免許を取った — said in
    December, so about 2024's summer — below 19 notes said in 2025's summer that share no word
    with "去年の夏に取った資格は？" (tm28: an outside hit holding more words and as close in
    meaning than *any* in-span one, not only an empty one, lost that LongMemEval question —
    long chat turns hold the question's common words; docs/benchmarks.md). A month named without
    a day (``_named_months``) counts as what a memory is about.
    """
    if not w.favour_span:
        return list(hits)
    inside = [in_span(h, span, zone) for h in hits]
    if all(inside) or not any(inside):
        return list(hits)
    rest = [h for h, i in zip(hits, inside, strict=True) if not i]
    slots: list[list[Hit]] = [[] for _ in range(len(rest) + 1)]  # in-span hits placed before rest[n]
    above = 0  # outside hits ranked above the hit at hand
    for hit, i in zip(hits, inside, strict=True):
        if not i:
            above += 1
            continue
        slot = 0
        if holds is not None and not holds(hit):  # only in the span: not above a better match
            far = _cosine(hit)
            better = (n for n in range(above - 1, -1, -1) if _cosine(rest[n]) >= far and holds(rest[n]))
            slot = next(better, -1) + 1
        slots[slot].append(hit)
    ordered: list[tuple[Hit, bool]] = []  # (hit, inside the span)
    for n, out in enumerate(rest):
        ordered.extend((h, True) for h in slots[n])
        ordered.append((out, False))
    ordered.extend((h, True) for h in slots[-1])
    # scores stay in order (a caller may sort again): a lifted hit just above the one below it
    placed: list[Hit] = []
    below = -math.inf
    for hit, lifted in reversed(ordered):
        placed.append(replace(hit, score=below + 1e-9) if lifted and hit.score <= below else hit)
        below = placed[-1].score
    return placed[::-1]


def _cosine(hit: Hit) -> float:
    """The hit's cosine with the question; one the vector search did not list is the furthest."""
    near = hit.signals.get("vector")
    return -math.inf if near is None else near
