"""Does a LINE message look pasted or forwarded? Then it is outside text, and the turn is untrusted.

A spouse's own words may ask for writes; words copied from a web page, a mail or another
chat may carry instructions nobody in the household wrote. LINE cannot tell us which is
which, so the message's shape decides (``safety.looks_outside``: normalised, then links,
header-like lines in any language, quoted blocks, chat exports, long multi-line text), and
any of them makes the whole turn need a card for every write.
"""

from __future__ import annotations

from ..safety import looks_outside

__all__ = ["looks_pasted"]


def looks_pasted(text: str) -> bool:
    """True for text with the shape of something not typed by the member (see ``safety._shapes``)."""
    return looks_outside(text)
