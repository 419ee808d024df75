"""Does a LINE message look pasted or forwarded? Then it is outside text, and the turn is untrusted.

A spouse's own words may ask for writes; words copied from a web page, a mail or another
chat may carry instructions nobody in the household wrote. LINE cannot tell us which is
which, so any sign of copied text — a URL, a forwarding header, a LINE chat-history
export, a long quoted block — makes the whole turn need a card for every write.
"""

from __future__ import annotations

import re

__all__ = ["looks_pasted"]

_SIGNS = re.compile(
    r"https?://|www\.\S+\.\S+"  # a link
    r"|転送|forwarded message|^\s*fwd?:|^-{3,}.*(?:original|元の)"  # forwarding headers
    r"|^\[LINE\]|のトーク履歴|^\d{4}[/.]\d{1,2}[/.]\d{1,2}\(.\)\s*$"  # a LINE chat-history export
    r"|^(?:from|差出人|送信者)\s*[:：]",  # a mail header
    re.IGNORECASE | re.MULTILINE,
)
_QUOTED = re.compile(r"^\s*(?:>|＞|\|)", re.MULTILINE)
LONG = 600  # characters: longer than people type on a phone


def looks_pasted(text: str) -> bool:
    """True for text with a URL, a forwarding or mail header, a chat export, or a long quoted block."""
    if _SIGNS.search(text):
        return True
    lines = text.splitlines()
    if len(_QUOTED.findall(text)) >= 2:
        return True
    return len(text) > LONG and len(lines) >= 5
