"""What a detector reports, and the one way findings are masked in text.

Every detector (personal data, secrets, injection phrases) returns ``Finding`` spans over
the exact text it was given. ``mask`` replaces them right to left with a fixed token
(``[redacted:phone]``) that no detector matches, so masking twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

# Digits and dashes as typed on a Japanese keyboard too: full-width ０-９ and the dash look-alikes.
DIGIT: Final = "[0-9\uff10-\uff19]"
DASH: Final = "[-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uff0d\u30fc]"
NOT_DIGIT_BEFORE: Final = rf"(?<!{DIGIT})(?<!{DIGIT}{DASH})"
NOT_DIGIT_AFTER: Final = rf"(?!{DIGIT})(?!{DASH}{DIGIT})"
TOKEN: Final = re.compile(r"\[redacted:[a-z_-]+\]")


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected span: ``text[start:end]`` is the matched value of ``kind``."""

    kind: str
    start: int
    end: int
    value: str
    replacement: str | None = None  # what masking puts instead (default: the kind's token)

    @property
    def token(self) -> str:
        if self.replacement is not None:
            return self.replacement
        return f"[redacted:{self.kind.replace('_', '-')}]"


def digits_of(text: str) -> str:
    """The ASCII digits in ``text`` (full-width ones converted), separators dropped."""
    return "".join(str(int(ch)) for ch in text if "0" <= ch <= "9" or "\uff10" <= ch <= "\uff19")


def non_overlapping(findings: Iterable[Finding]) -> list[Finding]:
    """Longest-first, then leftmost: overlapping findings keep the one that covers more text."""
    chosen: list[Finding] = []
    for found in sorted(findings, key=lambda f: (-(f.end - f.start), f.start)):
        if all(found.end <= other.start or found.start >= other.end for other in chosen):
            chosen.append(found)
    return sorted(chosen, key=lambda f: f.start)


def mask(text: str, findings: Sequence[Finding]) -> str:
    """``text`` with each finding replaced by its token (findings must not overlap)."""
    out = text
    for found in sorted(findings, key=lambda f: f.start, reverse=True):
        out = out[: found.start] + found.token + out[found.end :]
    return out


def inside_token(text: str, start: int, end: int) -> bool:
    """Whether the span lies within an earlier redaction token (so it is not masked again)."""
    return any(m.start() <= start and end <= m.end() for m in TOKEN.finditer(text))
