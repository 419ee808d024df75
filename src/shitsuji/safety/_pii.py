"""Personal data in what people type: card numbers, My Number, bank accounts, e-mail, phones.

Each recognizer is a regular expression for the shape plus a check of what the shape
cannot tell: the Luhn digit and the issuer prefix of a card, the check digit of a
Japanese My Number (個人番号), the mod-97 of an IBAN, the digit count of a phone number,
and, where a bare number could be anything (a 7-digit account, a 12-digit My Number, a
10-digit landline without dashes), the words just before it. Full-width digits and the
dashes a Japanese keyboard types (－, ー, −) count like their ASCII forms.

The figures behind these choices (precision and recall on household chat, Japanese and
English) are in ``docs/benchmarks.md``; ``shitsuji bench safety`` measures them again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final, Literal

from ._findings import DASH, DIGIT, NOT_DIGIT_AFTER, NOT_DIGIT_BEFORE, Finding, digits_of, inside_token

PiiKind = Literal["credit_card", "my_number", "bank_account", "email", "phone"]
PII_KINDS: Final[tuple[PiiKind, ...]] = ("credit_card", "my_number", "bank_account", "email", "phone")

D: Final = DIGIT
SEP: Final = rf"(?:{DASH}|[ \u3000])"
NB: Final = NOT_DIGIT_BEFORE
NA: Final = NOT_DIGIT_AFTER
_BEFORE: Final = 24  # how many characters before a bare number its context words may sit in

# -- credit cards --------------------------------------------------------------------

_CARD: Final = re.compile(rf"{NB}{D}(?:{SEP}?{D}){{12,80}}{NA}")  # then whole groups are tried


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _issuer_ok(d: str) -> bool:
    """Whether the number starts like a card of a known network with a fitting length."""
    n, two, three, four = len(d), int(d[:2]), int(d[:3]), int(d[:4])
    if d[0] == "4":
        return n in (16, 19)  # Visa (13-digit ones are long gone; JAN barcodes are 13 digits from 45/49)
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16  # Mastercard
    if two in (34, 37):
        return n == 15  # American Express
    if 3528 <= four <= 3589 or four == 6011 or two in (62, 65) or 644 <= three <= 649:
        return 16 <= n <= 19  # JCB, Discover, UnionPay
    if 300 <= three <= 305 or two in (36, 38, 39):
        return 14 <= n <= 19  # Diners Club
    return False


_GROUP: Final = re.compile(rf"{D}+")


def _card_in(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The longest run of whole digit groups in ``text[start:end]`` that is a valid card number."""
    groups = [(m.start(), m.end()) for m in _GROUP.finditer(text, start, end)]
    runs = [(groups[i][0], groups[j][1]) for i in range(len(groups)) for j in range(i, len(groups))]
    for left, right in sorted(runs, key=lambda r: r[0] - r[1]):
        d = digits_of(text[left:right])
        if 13 <= len(d) <= 19 and _issuer_ok(d) and luhn_ok(d):
            return left, right
    return None


def _cards(text: str) -> Iterator[Finding]:
    for m in _CARD.finditer(text):
        found = _card_in(text, m.start(), m.end())
        if found:
            yield Finding("credit_card", *found, text[found[0] : found[1]])


# -- My Number (個人番号) -------------------------------------------------------------

# Not part of a longer grouped number (a card's first twelve digits, say).
_MY_NUMBER: Final = re.compile(rf"{NB}(?<!{D}{SEP}){D}{{4}}{SEP}?{D}{{4}}{SEP}?{D}{{4}}{NA}(?!{SEP}{D})")
_MY_NUMBER_WORDS: Final = re.compile(r"マイナンバー|個人番号|(?i:my\s*number)")
# Other 12-digit numbers a household meets: parcels, orders, memberships, receipts.
_OTHER_NUMBER_WORDS: Final = re.compile(
    r"追跡|伝票|問い?合わ?せ|注文|受付|会員|予約|配送|発送|荷物|お届け|レシート|口座|"
    r"(?i:order|tracking|parcel|invoice|booking|reservation|member(?:ship)?|ticket|receipt)"
)


def my_number_ok(digits: str) -> bool:
    """The check digit of a 12-digit individual number (行政手続における特定の個人を識別するための番号)."""
    if len(digits) != 12:
        return False
    body = [int(c) for c in reversed(digits[:11])]  # P1 is the digit just left of the check digit
    total = sum(p * (n + 1 if n <= 6 else n - 5) for n, p in enumerate(body, start=1))
    rest = total % 11
    return int(digits[11]) == (0 if rest <= 1 else 11 - rest)


def _my_numbers(text: str) -> Iterator[Finding]:
    for m in _MY_NUMBER.finditer(text):
        before = text[max(0, m.start() - _BEFORE) : m.start()]
        if not my_number_ok(digits_of(m.group())):
            continue
        if _MY_NUMBER_WORDS.search(before) or not _OTHER_NUMBER_WORDS.search(before):
            yield Finding("my_number", m.start(), m.end(), m.group())


# -- bank accounts -------------------------------------------------------------------

_ACCOUNT: Final = re.compile(rf"{NB}{D}{{7}}{NA}")
_YUCHO: Final = re.compile(rf"{NB}{D}{{5}}{SEP}{D}{{8}}{NA}")
_YUCHO_NUMBER: Final = re.compile(rf"{NB}{D}{{8}}{NA}")
_YUCHO_WORDS: Final = re.compile(r"ゆうちょ|記号")
_BANK_WORDS: Final = re.compile(
    r"銀行|信用金庫|信金|信組|ゆうちょ|労金|支店|普通|当座|口座|振込先|振り込み先|"
    r"(?i:bank|account\s*(?:no\.?|number|#)|acct)"
)
_IBAN: Final = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])"
)


def iban_ok(value: str) -> bool:
    compact = value.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _bank_accounts(text: str) -> Iterator[Finding]:
    for pattern in (_ACCOUNT, _YUCHO):
        for m in pattern.finditer(text):
            if _BANK_WORDS.search(text[max(0, m.start() - _BEFORE) : m.start()]):
                yield Finding("bank_account", m.start(), m.end(), m.group())
    for m in _YUCHO_NUMBER.finditer(text):
        if _YUCHO_WORDS.search(text[max(0, m.start() - _BEFORE) : m.start()]):
            yield Finding("bank_account", m.start(), m.end(), m.group())
    for m in _IBAN.finditer(text):
        if iban_ok(m.group()):
            yield Finding("bank_account", m.start(), m.end(), m.group())


# -- e-mail --------------------------------------------------------------------------

_EMAIL: Final = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+[@＠][A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)


def _emails(text: str) -> Iterator[Finding]:
    for m in _EMAIL.finditer(text):
        yield Finding("email", m.start(), m.end(), m.group())


# -- phone numbers -------------------------------------------------------------------

_JP_PHONE: Final = re.compile(
    rf"{NB}(?:[(（][0０]{D}{{0,4}}[)）]|[0０]{D}{{0,4}}){SEP}?[(（]?{D}{{1,4}}[)）]?{SEP}?{D}{{3,4}}{NA}"
)
_INTL_PHONE: Final = re.compile(rf"(?<![\w+＋])[+＋][1-9１-９](?:[ \-.()（）\u3000]{{0,2}}{D}){{6,14}}{NA}")
_NANP: Final = re.compile(rf"{NB}(?:\([2-9]\d\d\)\s?|[2-9]\d\d[-.])\d{{3}}[-.]\d{{4}}{NA}")
_PHONE_WORDS: Final = re.compile(r"電話|携帯|連絡先|でんわ|(?i:tel|phone|call|mobile|fax)|☎|📞")
_MOBILE: Final = re.compile(r"0[5789]0")


def _jp_phone_ok(match: str, before: str) -> bool:
    d = digits_of(match)
    separated = len(d) != len(match)
    if len(d) == 11:
        return bool(_MOBILE.match(d)) or d.startswith("0800")
    if len(d) == 10 and d[1] != "0":
        return separated or bool(_PHONE_WORDS.search(before))
    return False


def _searched(pattern: re.Pattern[str], text: str, ok: Callable[[re.Match[str]], bool]) -> Iterator[Finding]:
    """Matches that pass ``ok``; after a rejected one the search goes on from its next character."""
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        if ok(m):
            yield Finding("phone", m.start(), m.end(), m.group())
            pos = m.end()
        else:
            pos = m.start() + 1


def _phones(text: str) -> Iterator[Finding]:
    yield from _searched(
        _JP_PHONE, text, lambda m: _jp_phone_ok(m.group(), text[max(0, m.start() - _BEFORE) : m.start()])
    )
    for pattern in (_INTL_PHONE, _NANP):
        yield from _searched(pattern, text, lambda m: 8 <= len(digits_of(m.group())) <= 15)


_RECOGNIZERS: Final[dict[PiiKind, Callable[[str], Iterator[Finding]]]] = {
    "credit_card": _cards,
    "my_number": _my_numbers,
    "bank_account": _bank_accounts,
    "email": _emails,
    "phone": _phones,
}


def find_pii(text: str, kinds: tuple[PiiKind, ...] = PII_KINDS) -> list[Finding]:
    """Every span of personal data of ``kinds`` in ``text`` (may overlap; see ``non_overlapping``)."""
    found = [f for kind in kinds for f in _RECOGNIZERS[kind](text)]
    return [f for f in found if not inside_token(text, f.start, f.end)]
