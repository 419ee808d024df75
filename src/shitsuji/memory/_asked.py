"""A question's vector: its sentence's meaning and its own words' meaning, half each.

The sentence encoder reads "What activities has Melanie done with her family?" mostly as its
shape — a question about a person — and puts it nearest to greetings that name her (cosine
0.47 against 0.42 for "I'm off to go swimming with the kids"). Each of the question's own
content words embedded alone ("activities", "done", "family") is a plain statement of what is
asked about; their mean, added to the sentence's vector at the same length, pulls the search
towards turns about those things. No constant: the two halves weigh the same.

The words are the question's Latin-script words as written, minus stop words and capitalised
words after the first (names: "Melanie", "LGBTQ+" — a name's meaning is every turn that names
the person, which the keyword search already finds). A question without such words (Japanese,
or only names and stop words) keeps its sentence vector as it was (``_embedding.question_vector``
chooses).

LoCoMo dev turn-level R@10, every conversation higher with no constant to choose: 0.8093 →
0.8235 (conv-26 0.8346 → 0.8422, conv-30 0.8165 → 0.8229, conv-41 0.7794 → 0.8047); pooled
LongMemEval and LongMemEval_S unchanged (docs/benchmarks.md, "Issue 23, lo27"). The cost is the
words in the same embedder call as the question (one batch for the built-in embedders), and only
the words not asked before: the last ``WORDS_KEPT`` words' vectors are kept (``WordVectors``).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Final

from ._embedders import Embedder, Vector
from ._text import STOP_WORDS

_LATIN_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'+-]*")
WORDS_KEPT = 4096  # word vectors kept per process (2 KB each with ``use``: 8 MB)


def meaning_words(question: str) -> list[str]:
    """The question's content words as written (lower-cased, once each, in order): Latin-script
    words that are not stop words nor names (capitalised after the first word, or a capitalised
    possessive: "Caroline's")."""
    out: list[str] = []
    for n, match in enumerate(_LATIN_WORD.finditer(question)):
        word = match.group(0)
        if word[0].isupper() and (n or word.endswith("'s")):
            continue
        if (word := word.lower()) not in STOP_WORDS:
            out.append(word)
    return list(dict.fromkeys(out))


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[Vector]:
    """``embed_query`` of each text: in one call where the embedder offers ``embed_queries``
    (an optional method: the built-in ``use`` and ``hash`` embed a query as a document)."""
    many = getattr(embedder, "embed_queries", None)
    if callable(many):
        return list(many(list(texts)))
    return [embedder.embed_query(text) for text in texts]


class WordVectors:
    """Vectors of single words by (model, word), the last ``size`` used: a household asks about the
    same things again, so most of a question's words were embedded before (thread-safe)."""

    def __init__(self, size: int = WORDS_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def of(self, embedder: Embedder, question: str, words: Sequence[str]) -> tuple[Vector, list[Vector]]:
        """The question's vector and each word's: the question and the words not kept, in one call."""
        model = embedder.model_id
        with self._lock:
            kept = {w: v for w in words if (v := self._kept.get((model, w))) is not None}
            for w in kept:
                self._kept.move_to_end((model, w))
        new = [w for w in words if w not in kept]
        sentence, *made = embed_queries(embedder, [question, *new])
        with self._lock:
            for w, v in zip(new, made, strict=True):
                self._kept[(model, w)] = v
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        kept.update(zip(new, made, strict=True))
        return sentence, [kept[w] for w in words]


#: The last words' vectors, English and Japanese (``_asked_ja``): a household asks about the same things.
WORD_VECTORS: Final = WordVectors()
