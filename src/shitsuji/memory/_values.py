"""Whether two texts close in meaning say the same thing: the values a vector cannot tell apart.

A sentence embedding puts "The deploy day is Tuesday" and "The deploy day is Thursday" at cosine
0.956 (``use``), above its dedupe threshold, and "… is not Tuesday" as near: the words that carry
the fact's value weigh little beside the words they share. A vector-near (not exact) match is
therefore a duplicate only when ``same_values`` holds — both texts carry the same:

* **numbers** (after NFKC, so ３時 is 3時; kanji numerals 三 / 十五 read as numbers, English
  one … ten and first … tenth too, so "two cats" and "2 cats" agree), dates' parts included;
* **weekday and month names**, English and Japanese alike (Tuesday / 火曜, March / 3月), read with
  ``_when``'s vocabulary;
* **negation**: as many not / never / no / n't / without (ない / ません / なかっ / ず) in each;
* **the value slot**: when ``_supersede.same_subject`` holds (both open with the same subject and
  only their endings differ), the terms of the two endings must be the same set (values blanked,
  so Tuesday / 火曜 agree there; kana-only terms, です / ました, left out). "The deploy day
  is on Tuesday" and "… is Tuesday" end in the same terms (on is a stop word) and stay one memory;
  "… Tuesday morning" and "夫の好きな飲み物はコーヒー" / "…は紅茶" do not: the write is stored and
  supersedes the old fact (history kept, ``_supersede``) instead of being dropped.

Words elsewhere are not compared: paraphrases differ in exactly those words ("I adore sushi" /
"I really love sushi"), and a subject that differs (夫 / 妻, mother / father) is kept apart by the
threshold, set above every measured different-fact pair. Each test errs one way: a false merge
loses a fact, a missed merge costs a row (and, where the subject is restated, a supersede link).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from ._supersede import _common_prefix, same_subject
from ._text import normalize, terms
from ._when import _JA_WEEKDAYS, _KANJI_NUMS, _MONTHS, _WEEKDAYS, _WORD_NUMS, _count

_ORDINALS: Final = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
)
_NUMBER_WORDS: Final = {
    **{w: n for w, n in _WORD_NUMS.items() if w not in ("a", "an")},
    **{w: n for n, w in enumerate(_ORDINALS, start=1)},
}
# full month names (English capitalises them: "May", never the verb "may"), abbreviations left out
_MONTH_NAMES: Final = {
    name: n for name, n in _MONTHS.items() if len(name) > 4 or name in ("may", "june", "july")
}
_EN_NAME: Final = re.compile(r"\b[A-Z][a-z]+\b")
_JA_MONTH: Final = re.compile(r"(\d+|[一二三四五六七八九十]+)月")
_JA_WEEKDAY: Final = re.compile(rf"([{_JA_WEEKDAYS}])曜日?")
_NUMBER: Final = re.compile(r"\d+(?:[.,]\d+)*")
_KANJI_NUMBER: Final = re.compile(rf"[{_KANJI_NUMS}十]+")
_UNDER_100: Final = re.compile(rf"[{_KANJI_NUMS}]|[{_KANJI_NUMS}]?十[{_KANJI_NUMS}]?")  # what _count reads
_WORD: Final = re.compile(r"[a-z]+(?:'[a-z]+)?")
_HIRAGANA: Final = re.compile(r"[ぁ-ゖー]+")
_EN_NEGATION: Final = frozenset(
    {"not", "never", "no", "none", "nobody", "nothing", "neither", "nor", "without", "cannot"}
)
# ない (also じゃない, ではない, 少ない alike in both), なかった, ません, ず before a pause (食べずに, せず、)
_JA_NEGATION: Final = re.compile(r"ない|なかっ|ません|ず(?=に|[、。,.\s]|$)")


def same_values(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` carry the same values (see the module doc): a near match may merge."""
    (values_a, rest_a), (values_b, rest_b) = _read(a), _read(b)
    if values_a != values_b or _negations(a) != _negations(b):
        return False
    if not same_subject(a, b):
        return True
    return _ending_terms(rest_a, rest_b) == _ending_terms(rest_b, rest_a)


def _read(text: str) -> tuple[frozenset[str], str]:
    """The values ``text`` carries, and its normalised text with them blanked out."""
    out: set[str] = set()

    def month_name(m: re.Match[str]) -> str:  # as written, before case folding: "May", never "may"
        month = _MONTH_NAMES.get(m.group(0).casefold())
        if month is None:
            return m.group(0)
        out.add(f"month:{month}")
        return " "

    def value(key: str) -> str:
        out.add(key)
        return " "

    norm = normalize(_EN_NAME.sub(month_name, text)).replace("’", "'")
    norm = _JA_MONTH.sub(lambda m: value(f"month:{_number(m.group(1))}"), norm)
    norm = _JA_WEEKDAY.sub(lambda m: value(f"weekday:{_JA_WEEKDAYS.index(m.group(1))}"), norm)
    norm = _NUMBER.sub(lambda m: value(_number(m.group(0))), norm)
    norm = _KANJI_NUMBER.sub(lambda m: value(_number(m.group(0))), norm)
    norm = _WORD.sub(lambda m: _word_value(m.group(0), value), norm)
    return frozenset(out), normalize(norm)


def _word_value(word: str, value: Callable[[str], str]) -> str:
    day = word[:-1] if word.endswith("days") else word  # "on Tuesdays" too
    if day in _WEEKDAYS:
        return value(f"weekday:{_WEEKDAYS.index(day)}")
    if word in _NUMBER_WORDS:
        return value(str(_NUMBER_WORDS[word]))
    return word


def _number(raw: str) -> str:
    if raw[0].isdigit():
        return raw.replace(",", "").lstrip("0") or "0"
    if _UNDER_100.fullmatch(raw):
        return str(_count(raw))
    return raw  # a longer run of kanji numerals: compared as written


def _negations(text: str) -> int:
    norm = normalize(text).replace("’", "'")
    words = _WORD.findall(norm)
    english = sum(1 for w in words if w in _EN_NEGATION or w.endswith("n't"))
    return english + len(_JA_NEGATION.findall(norm))


def _ending_terms(text: str, other: str) -> frozenset[str]:
    """The terms of ``text`` after the opening it shares with ``other`` (word by word when spaced);
    both as ``_read`` leaves them."""
    a, b = text, other
    if " " in a and " " in b:
        wa, wb = a.split(" "), b.split(" ")
        n = _common_prefix(wa, wb)
        ending = " ".join(wa[n:])
    else:
        ca, cb = a.replace(" ", ""), b.replace(" ", "")
        ending = ca[_common_prefix(list(ca), list(cb)) :]
    # values were blanked (compared on their own: Tuesday and 火曜 agree); kana-only terms are grammar
    return frozenset(t for t in terms(ending, readings=False) if not _HIRAGANA.fullmatch(t))
