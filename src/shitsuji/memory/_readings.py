"""Readings: a Japanese word is also indexed under how it is pronounced.

Japanese writes one word several ways — 納豆 / なっとう, 母 / はは, 花粉症 / かふんしょう,
猫 / ねこ — and a member types whichever comes first on the phone. Character bigrams of the
surface never meet across scripts, and the default embedder puts the two spellings far
apart (cosine 0.1–0.3 for なっとう ↔ 納豆, inside 200 distractors' range: docs/benchmarks.md,
issue 23 round 3). So every word that holds a kanji is also indexed under the bigrams of its
reading in katakana (納豆 → ナッ ット トウ), and every hiragana content word under its own
kana turned to katakana (なっとう → the same bigrams). The reading comes from a morphological
analyser with a shipped dictionary (sudachipy + sudachidict-core: offline, ~0.02 ms a
sentence); where they are not installed nothing is added and the index is as before.

Words of katakana alone already are their reading; particles and auxiliaries (は, の, です)
are left out, as the surface bigrams leave out single kana.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any, Final, NamedTuple

_HIRAGANA_TO_KATAKANA: Final = {code: code + 0x60 for code in range(0x3041, 0x3097)}
#: Parts of speech whose words carry no content of their own.
_FUNCTION: Final = frozenset({"助詞", "助動詞", "補助記号", "空白", "記号"})
_local = threading.local()  # a Sudachi tokenizer is not to be shared between threads
_lock = threading.Lock()
_dictionary: Any = None  # one per process (memory-mapped), loaded on the first Japanese text
_available: bool | None = None
MAX_INPUT_BYTES: Final = 49_149  # the analyser refuses longer input ("Input is too long")
#: The letters of a Japanese run, as ``_text.terms`` cuts one from a text for its keyword terms.
RUN_LETTERS: Final = "[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヵヶー]"
_RUN: Final = re.compile(RUN_LETTERS + "+")
#: Where a hiragana word of two or more letters can be (``kanji_spelling`` parses nothing else).
_HIRAGANA_PAIR: Final = re.compile("[\u3041-\u309f]{2}")


def _tokenizer() -> Any:
    global _dictionary
    tokenizer = getattr(_local, "tokenizer", None)
    if tokenizer is None:
        with _lock:
            if _dictionary is None:
                from sudachipy import Dictionary  # ~0.2 s to import and map the dictionary

                _dictionary = Dictionary()
        tokenizer = _dictionary.tokenizer()
        _local.tokenizer = tokenizer
    return tokenizer


def available() -> bool:
    """Whether readings are indexed in this process (sudachipy and its dictionary installed)."""
    global _available
    if _available is None:
        try:
            import sudachidict_core  # noqa: F401
            import sudachipy  # noqa: F401
        except ImportError:
            _available = False
        else:
            _available = True
    return _available


def katakana(text: str) -> str:
    """Hiragana turned to katakana; everything else kept."""
    return text.translate(_HIRAGANA_TO_KATAKANA)


class Word(NamedTuple):
    """A word as the dictionary reads it: written form, reading (katakana), part of speech, and its
    normalised form (its usual written form: ねこ → 猫; a verb's dictionary form)."""

    surface: str
    reading: str
    pos: tuple[str, ...]
    normalized: str = ""


@lru_cache(maxsize=100_000)
def analysis(run: str) -> tuple[Word, ...]:
    """Every word of ``run`` (a CJK run), the analyser's one pass over it. The keyword terms
    (``reading_terms``, ``_romaji.name_spellings``) and a question's kanji spelling
    (``kanji_spelling``) read the same analysis: a question's run is parsed once for all of them,
    and a run seen before not at all."""
    if not available():
        return ()
    return tuple(
        Word(word.surface(), word.reading_form(), tuple(word.part_of_speech()), word.normalized_form())
        for word in _tokenizer().tokenize(run)
    )


@lru_cache(maxsize=100_000)
def content_words(run: str) -> tuple[Word, ...]:
    """The words of ``run`` (a CJK run, normalised) that carry content (``analysis`` without the
    function words)."""
    return tuple(word for word in analysis(run) if word.pos[0] not in _FUNCTION)


@lru_cache(maxsize=100_000)
def reading_terms(run: str) -> tuple[str, ...]:
    """Katakana bigrams of the readings of the content words of ``run`` (a CJK run, normalised)."""
    if len(run) < 2:
        return ()
    out: list[str] = []
    for word in content_words(run):
        if _has_kanji(word.surface):
            spoken = word.reading
        elif _is_hiragana(word.surface):
            spoken = katakana(word.surface)
        else:
            continue
        out.extend(spoken[i : i + 2] for i in range(len(spoken) - 1))
    return tuple(out)


@lru_cache(maxsize=4096)
def kanji_spelling(text: str) -> str | None:
    """``text`` with each hiragana noun of two or more letters in the dictionary's kanji spelling
    (なっとうは好き？ → 納豆は好き？); None when no word changes, or without the analyser.

    The spelling is Sudachi's normalised form: a word's usual written form (ねこ → 猫, しいたけ →
    椎茸), not a reading; nouns only, since a verb's normalised form is its dictionary form and
    would change the sentence (飲んでる → 飲む). The analyser can split a long kana run wrongly
    (きょうけんびょう → 今日 + けんびょう), so the spelling is used beside the text, never for it
    (``_embedding.question_vector``).

    Each Japanese run of the text that holds two hiragana in a row is read through ``analysis``,
    the analysis its keyword terms read (``_text.terms``), and respelled in place: a question is
    parsed once for both, a run asked before not at all (issue 23, qv28). A word is read within
    its run, as the keyword side reads it: at a run's end the analyser can read it otherwise than
    before a mark (いくら before ？ a noun, 幾ら; at the end an adverb, kept).
    """
    if len(text.encode()) > MAX_INPUT_BYTES or not _HIRAGANA_PAIR.search(text) or not available():
        return None
    out: list[str] = []
    changed = False
    end = 0
    for match in _RUN.finditer(text):
        run = match.group(0)
        if not _HIRAGANA_PAIR.search(run):
            continue
        out.append(text[end : match.start()])
        end = match.end()
        for word in analysis(run):
            if (
                word.pos[0] == "名詞"
                and len(word.surface) >= 2
                and _is_hiragana(word.surface)
                and _has_kanji(word.normalized)
            ):
                out.append(word.normalized)
                changed = True
            else:
                out.append(word.surface)
    out.append(text[end:])
    return "".join(out) if changed else None


def _has_kanji(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or ch == "々" for ch in text)


def _is_hiragana(text: str) -> bool:
    return all("\u3041" <= ch <= "\u309f" for ch in text)
