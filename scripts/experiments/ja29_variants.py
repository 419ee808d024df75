"""Issue 23 (ja29): a mixed-script question's vector — variants over the Japanese sets, per query.

ja28's harness (``ja28_variants.py``: each set ingested once as ``bench japanese`` does, 200
distractors, every variant's question vector patched into ``MemoryEngine.recall``) with ja29's
variants and the ``mixed`` set (``src/shitsuji/bench/data/ja-mixed``).

    .venv/bin/python scripts/experiments/ja29_variants.py --sets mixed,fresh,held,recall,dev base join
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ja28_variants as h

from shitsuji.memory._asked import WORD_VECTORS, meaning_words
from shitsuji.memory._asked_ja import japanese_meaning_words
from shitsuji.memory._embedders import unit
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import kanji_spelling

h.SETS["mixed"] = h.D / "ja-mixed"
_NAME = re.compile(r"[A-Z][a-z]+")


def joined(latin_filter=None, halves=False):
    def qv(embedder, text, **kw):
        latin = meaning_words(text)
        spelled = kanji_spelling(text)
        ja = japanese_meaning_words(spelled or text)
        if not (latin and ja):
            return question_vector(embedder, text)
        if latin_filter is not None:
            latin = [w for w in latin if latin_filter(text, w)]
        words = list(dict.fromkeys([*latin, *ja]))
        extra = [spelled] if spelled is not None else []
        sentence, each = WORD_VECTORS.of(embedder, text, [*extra, *words])
        if spelled is not None:
            sentence = unit(sentence + each.pop(0))
        if halves and latin:
            mean = unit(np.mean(np.stack(each[: len(latin)]), axis=0)) + unit(
                np.mean(np.stack(each[len(latin) :]), axis=0)
            )
        else:
            mean = np.mean(np.stack(each), axis=0)
        return unit(unit(sentence) + unit(mean)).astype(np.float32)

    return qv


def _not_title(text, word):
    """Leave out a word written as a name (one capital, then lower case: Chika, Netflix)."""
    return not any(
        _NAME.fullmatch(m.group(0)) and m.group(0).lower() == word
        for m in re.finditer(r"[A-Za-z][A-Za-z'+-]*", text)
    )


def _not_capital(text, word):
    """Leave out every capitalised word, the first too (Japanese has no sentence-start capital)."""
    return not any(
        m.group(0)[0].isupper() and m.group(0).lower() == word
        for m in re.finditer(r"[A-Za-z][A-Za-z'+-]*", text)
    )


def ja_only(embedder, text, **kw):
    """A mixed question as if it had no Latin words: the Japanese rule only."""
    latin = meaning_words(text)
    if not latin:
        return question_vector(embedder, text)
    spelled = kanji_spelling(text)
    ja = japanese_meaning_words(spelled or text)
    if not ja:
        return question_vector(embedder, text)
    extra = [spelled] if spelled is not None else []
    sentence, each = WORD_VECTORS.of(embedder, text, [*extra, *ja])
    if spelled is not None:
        sentence = unit(sentence + each.pop(0))
    return unit(unit(sentence) + unit(np.mean(np.stack(each), axis=0))).astype(np.float32)


h.VARIANTS.update(
    {
        "join": joined(),
        "join_noname": joined(_not_title),
        "join_halves": joined(halves=True),
        "ja_only": ja_only,
        "join_nocap": joined(_not_capital),
    }
)

if __name__ == "__main__":
    h.main()
