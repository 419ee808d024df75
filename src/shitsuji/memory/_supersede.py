"""Newer facts win: which stored fact a new one replaces, and which of two close matches is older.

Two rules, both without a model:

* **Supersede on write.** "夫の好きな飲み物はコーヒー" then "夫の好きな飲み物は紅茶": the
  same subject with a new value. A new fact supersedes a live one in the same scope when
  both open with the same words — at least ``MIN_SUBJECT_CHARS`` characters of Japanese
  or ``MIN_SUBJECT_WORDS`` English words, covering ``MIN_SUBJECT_SHARE`` of the shorter
  text — and only their endings differ. Facts about different people ("夫は沖縄出身" /
  "妻は沖縄出身") differ at the start and are never merged. When the embedder ran, the two
  must also be close in meaning (``MIN_COSINE``). The old row is not deleted: it gets a
  ``valid_until`` and a ``superseded_by`` link (the new one ``supersedes``), stays in
  ``list`` and ``show``, and ``restore`` brings it back.
* **Recency between close matches.** Among the best hits of a recall, an older memory
  that shares most of its terms with a newer one (``overlap``) is demoted, so the newer
  version of a fact comes first even when it was not worded to supersede the old one.
"""

from __future__ import annotations

import re
from typing import Final

from ._text import normalize, terms

MIN_SUBJECT_CHARS: Final = 6  # Japanese (and other unspaced text): shared opening characters
MIN_SUBJECT_WORDS: Final = 3  # spaced text: shared opening words
MIN_SUBJECT_SHARE: Final = 0.6  # of the shorter text
MIN_COSINE: Final = 0.7  # below the dedupe threshold, above unrelated facts
_WORDS: Final = re.compile(r"\w+")
_SPACED: Final = re.compile(r"[a-z]{2,} [a-z]")


def same_subject(old: str, new: str) -> bool:
    """True when ``new`` restates ``old``'s subject with a different ending (see the module doc)."""
    a, b = normalize(old), normalize(new)
    if a == b:
        return False
    if _SPACED.search(a) and _SPACED.search(b):
        wa, wb = _WORDS.findall(a), _WORDS.findall(b)
        shared = _common_prefix(wa, wb)
        return shared >= MIN_SUBJECT_WORDS and shared >= MIN_SUBJECT_SHARE * min(len(wa), len(wb))
    ca, cb = a.replace(" ", ""), b.replace(" ", "")
    shared = _common_prefix(list(ca), list(cb))
    return shared >= MIN_SUBJECT_CHARS and shared >= MIN_SUBJECT_SHARE * min(len(ca), len(cb))


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def overlap(a: str, b: str) -> float:
    """Share of the smaller term set found in the other (0 when either has no terms)."""
    ta, tb = set(terms(a)), set(terms(b))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))
