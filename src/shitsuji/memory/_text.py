"""Text normalisation and keyword terms that work for Japanese as well as English.

Japanese has no spaces, so a word tokenizer on whitespace finds nothing, and FTS5's
trigram tokenizer cannot match one- or two-character words (紅茶, 沖縄, 猫). We index
character bigrams of every CJK run, plus single kanji (so 猫 alone is found); kana
singles are left out: hiragana ones are mostly particles, katakana words are longer. Latin text is
split into words, English stop words are dropped and the rest stemmed (Snowball), so
"painting" finds "paints".

Measured alternative (see docs/benchmarks.md): dictionary tokenizers (sudachipy,
fugashi + unidic-lite) in place of the bigrams did no better on our sets. Beside them, a
dictionary does help: every Japanese word is also indexed under the bigrams of its reading
(``_readings``), so kana and kanji spellings of one word meet (issue 23, round 3), and every
name and katakana word under its romanisation (``_romaji``), so ケン meets "Ken" (issue 23, ja23).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from typing import Final

import snowballstemmer

from ._readings import RUN_LETTERS, reading_terms
from ._romaji import name_spellings

_WORD: Final = re.compile(
    r"[0-9a-z\u00c0-\u024f]+(?:['’][a-z]+)?"  # latin words and numbers
    rf"|{RUN_LETTERS}+"  # CJK runs
    r"|[^\W\d_\u3040-\u30ff\u3400-\u9fff]+"  # other scripts' words (Hangul, Cyrillic …)
)
_CJK_RUN: Final = re.compile(RUN_LETTERS)
CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # Japanese text
_KANJI: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々]")
_POSSESSIVE: Final = re.compile(r"'s$")
_SPACE: Final = re.compile(r"\s+")
_TRAILING_PUNCT: Final = re.compile(r"[\s。．.!！?？、,]+$")

STOP_WORDS: Final = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can could did do does doing don't down during each few for from further had has have having
    he her here hers herself him himself his how i i'm if in into is isn't it it's its itself just let's me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that that's the their theirs them themselves then there these they this those through to too
    under until up very was we were what what's when where which while who whom why will with would you your yours
    yourself yourselves i've you're we're they're""".split()  # noqa: SIM905
)


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the form that hashing and matching see."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content_hash(text: str) -> str:
    """Hash of the normalised content; equal for texts that differ only in case, width, spacing or a final stop."""
    key = _TRAILING_PUNCT.sub("", normalize(text))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def terms(text: str, *, readings: bool = True) -> list[str]:
    """Keyword terms of ``text`` for the full-text index (order kept, repeats kept).

    ``readings=False``: the written forms alone, without the readings of Japanese words and
    the Latin spellings of names (the prompt hook's gate counts shared terms, its thresholds
    calibrated on those).
    """
    out: list[str] = []
    for match in _WORD.finditer(normalize(text)):
        token = match.group(0)
        if _CJK_RUN.match(token):
            out.extend(_cjk_terms(token))
            if readings:
                out.extend(reading_terms(token))  # 納豆 and なっとう meet on ナッ ット トウ (_readings)
                # ケン is also "ken", 札幌 "sapporo" (_romaji); spelled as an English word is indexed
                out.extend(_stem(name) for name in name_spellings(token) if name not in STOP_WORDS)
        else:
            token = _POSSESSIVE.sub("", token.replace("’", "'"))
            if token not in STOP_WORDS:
                out.append(_stem(token) if token.isascii() and token.isalpha() else token)
    return out


def cjk_runs(text: str) -> list[str]:
    """The runs of Japanese letters in ``text`` as ``terms`` reads them (normalised)."""
    return [m.group(0) for m in _WORD.finditer(normalize(text)) if _CJK_RUN.match(m.group(0))]


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in first-seen order."""
    return list(dict.fromkeys(terms(text)))


_STEMMER: Final = snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    stem: str = _STEMMER.stemWord(word)
    return stem


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run] if _KANJI.match(run) else []
    out = [run[i : i + 2] for i in range(len(run) - 1)]
    out.extend(ch for ch in run if _KANJI.match(ch))
    return out


CHUNK_CHARS: Final = 600
_SENTENCE_END: Final = re.compile(r"(?<=[。．！？!?\n])|(?<=[.;:] )")


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Split long text into pieces of at most ``size`` characters, at sentence ends where possible.

    Short memories (nearly all facts) stay one piece. Documents are indexed piece by piece
    so a match deep inside one is found, and recall can show the piece that matched.
    """
    if len(text) <= size:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > size:  # one huge sentence: cut it hard
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:size])
            sentence = sentence[size:]
        if len(current) + len(sentence) > size:
            pieces.append(current)
            current = ""
        current += sentence
    if current.strip():
        pieces.append(current)
    return [p.strip() for p in pieces if p.strip()]
