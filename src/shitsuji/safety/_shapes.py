"""Outside text recognised by its shape, not by phrases: what a member did not type themselves.

A phrase list ("forwarded message", "From:") misses a header block without ``From``, an
English one, a short link or a full-width URL. So the text is normalised first (NFKC folds
full-width ``ｈｔｔｐｓ：／／`` into ``https://``; zero-width and bidi characters go), and
then judged by structure, in any language:

- a link: a scheme (``https://``), ``www.``, or a bare domain (``amzn.to/3xYz``,
  ``example.co.jp``);
- header-like lines: two or more lines that are a short label, a colon and a value
  (``件名: …`` / ``宛先: …``, ``Subject:`` / ``To:``), or one such line whose value is a mail
  address or a date;
- a quoted or forwarded block: lines starting with ``>`` or ``|``, a rule of dashes or
  underscores;
- a chat export: lines that start with a time or date and a speaker;
- long multi-line text (longer than people type on a phone).

Such a turn is untrusted: every write waits for a card. The auto-run allow-list applies
only to the member's own plain words.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_INVISIBLE: Final = re.compile(r"[\u00ad\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\u061c]")
_TLD: Final = (
    r"(?:com|net|org|info|biz|io|co|me|to|ly|gl|be|gd|cc|tv|app|dev|page|link|site|shop|store|online|"
    r"xyz|top|club|jp|us|uk|de|fr|cn|kr|tw|hk|ru|in|au|ca|ne|or|ac|go|ed|lg|gr)"
)
_LINK: Final = re.compile(
    r"[a-z][a-z0-9+.-]{1,15}://\S"  # any scheme
    r"|\bwww\.\S"
    rf"|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.{_TLD}\b(?:/\S*)?"  # a bare domain
    r"|\b[a-z0-9][a-z0-9-]*\.[a-z]{2,12}/\S",  # any domain with a path (a short link)
    re.IGNORECASE,
)
# a header-like line: a short label (letters of any script, maybe a space or hyphen), a colon, a value
_HEADER: Final = re.compile(r"^\s*[^\W\d_][\w\- ]{0,18}?\s*:\s*(\S.*)$", re.MULTILINE)
_ADDRESS_OR_DATE: Final = re.compile(r"@|\b\d{4}[-/.年]\d{1,2}")
_QUOTED: Final = re.compile(r"^\s*(?:>|\|)", re.MULTILINE)
_RULE: Final = re.compile(r"^\s*(?:-{4,}|_{4,}|={4,}|-{2,}\s*\S.*\S\s*-{2,})\s*$", re.MULTILINE)
_CHAT_LINE: Final = re.compile(
    r"^\s*(?:\d{4}[/.-]\d{1,2}[/.-]\d{1,2}[^\n]*?)?\d{1,2}:\d{2}(?::\d{2})?\s+\S+[\t ]+\S", re.MULTILINE
)
_EXPORT: Final = re.compile(
    r"^\[LINE\]|のトーク履歴|chat history|^\d{4}[/.]\d{1,2}[/.]\d{1,2}\(.\)\s*$", re.I | re.M
)
_FORWARD: Final = re.compile(r"転送|forwarded|^\s*fwd?\s*:|^\s*re\s*:", re.IGNORECASE | re.MULTILINE)
LONG: Final = 400  # columns (a kanji is two) over several lines: longer than people type on a phone
LONG_LINES: Final = 4


def normalised(text: str) -> str:
    """NFKC (full-width letters and colons fold to ASCII), invisible characters removed."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _width(text: str) -> int:
    """Length with wide characters (kana, kanji) counted twice: a Japanese line says as much in half."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def outside_signs(text: str) -> list[str]:
    """The shapes of outside text found in ``text`` (empty: it reads as the member's own words)."""
    plain = normalised(text)
    signs = []
    if _LINK.search(plain):
        signs.append("link")
    headers = _HEADER.findall(plain)
    if len(headers) >= 2 or any(_ADDRESS_OR_DATE.search(value) for value in headers):
        signs.append("header")
    if len(_QUOTED.findall(plain)) >= 2 or _RULE.search(plain) or _FORWARD.search(plain):
        signs.append("quoted")
    if len(_CHAT_LINE.findall(plain)) >= 2 or _EXPORT.search(plain):
        signs.append("chat_export")
    if _width(plain) > LONG and len(plain.splitlines()) >= LONG_LINES:
        signs.append("long")
    return signs


def looks_outside(text: str) -> bool:
    """True when ``text`` has the shape of something the member did not type themselves."""
    return bool(outside_signs(text))
