"""What a memory's vectors are made of: its first chunks, each nudged towards its context.

Embedding is the cost of a write (the USE forward pass runs at ~15,000 tokens/s on two
cores, close to their arithmetic limit), so two rules keep long chat turns fast:

* **Only the first ``VECTOR_CHUNKS`` chunks get vectors.** Later chunks of a long memory
  are still found by their words (every chunk is in the keyword index); the meaning of a
  chat turn or a note is nearly always in its opening (LongMemEval_S: recall kept, see
  docs/benchmarks.md).
* **Each turn is embedded once, and reused as the next turns' context.** The context of
  a chat turn is the turns before it: a context line that is the first line of an
  earlier row takes that row's vector; a context that quotes no known row is embedded
  once, its last ``CONTEXT_FALLBACK_CHARS`` characters. The context's vector is the mean
  of the quoted turns', and each chunk's vector is ``unit(chunk + CONTEXT_WEIGHT *
  context)``. Embedding the context as a text prefix of every chunk cost ~2.7x the
  turn's own text.

A fact with search keys (a model's synonyms and translation, ``Memory.keys``) is also moved
towards its keys' meaning: the keys are embedded as one text and added with ``KEYS_WEIGHT``
(``unit(chunk + context + KEYS_WEIGHT * keys)``), so a Japanese question finds an English note
its model keyed in Japanese even where the note's own words are far from it (issue 23, kv26).
This costs one more text per keyed fact in the same embedder call; a fact without keys gets
exactly the vector it had before. ``fact_texts`` is the one place that says which texts a
fact's vectors are made of: remember, edit, import, reindex and the background indexer all
come through ``embed_rows``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._asked import WORD_VECTORS
from ._asked_ja import question_words
from ._embedders import Embedder, Matrix, Vector, unit
from ._readings import kanji_spelling
from ._text import chunks

VECTOR_CHUNKS = 1  # chunks of a memory that get vectors
CONTEXT_CHARS = 1000  # context tail that shapes the vectors
CONTEXT_WEIGHT = (
    1.0  # of the context's vector, added to each chunk's before normalising (LoCoMo dev, leave-one-out)
)
CACHE_LINES = 4096  # context lines kept between batches of one indexing run
KEY_CHARS = 200  # a context line and the turn it quotes are matched on this much of its first line
CONTEXT_FALLBACK_CHARS = 400  # embedded when a context quotes no known turn
KEYS_WEIGHT = 0.5  # of the keys' vector, added to each chunk's (Japanese sets with keys, leave-one-set-out)

#: A row to embed: (content, context, search keys).
FactText = tuple[str, str | None, Sequence[str]]


def vector_pieces(content: str) -> list[str]:
    """The chunks of ``content`` that get vectors."""
    return chunks(content)[:VECTOR_CHUNKS]


def fact_texts(content: str, keys: Sequence[str]) -> tuple[list[str], str | None]:
    """The texts a fact's vectors are made of: the chunks that get vectors, and its keys as one
    text ("coriander, cilantro, 香草"; None when it has none). Keys are short words, so one text
    of them is one cheap forward pass, and its meaning is the keys' together."""
    return vector_pieces(content), ", ".join(keys) if keys else None


def _key(text: str) -> str:
    """How a turn is recognised when quoted as context: its first line, whitespace collapsed, cut short."""
    first = text.strip().split("\n", 1)[0]
    return " ".join(first.split())[:KEY_CHARS]


def _context_keys(context: str | None) -> tuple[list[str], str]:
    """The context's lines as keys, and the text embedded when none is a known turn (its tail)."""
    if not context:
        return [], ""
    tail = context[-CONTEXT_CHARS:]
    return [_key(line) for line in tail.split("\n") if line.strip()], tail[-CONTEXT_FALLBACK_CHARS:].strip()


def question_vector(embedder: Embedder, text: str, *, words: bool = True) -> Vector:
    """The vector recall searches with for a question (``MemoryEngine.recall``), each rule where it
    was measured: with hiragana nouns, the mean direction of the text as typed and of the text in
    their kanji spelling (``_readings.kanji_spelling``, issue 23 ja27); with content words
    (``_asked_ja.question_words``: Latin ones, lo27; Japanese ones, ja28; both in a mixed question,
    ja29; ``words=False``: ``RecallWeights.word_meanings`` off), that and their meaning's mean,
    half each; else the text's own embedding.

    A member types なっとう where the note says 納豆; keywords meet through readings, but the
    model puts the two spellings far apart (なっとうは好き？ and タロウは納豆が食べられない: cosine
    0.065, below a list of unrelated 好き notes), so the vector drowned the keyword match (issue
    23, ja27). The kanji spelling alone is not used: the analyser's spelling is sometimes wrong
    (ごはん → 御飯, きょうけんびょう → 今日…) and the typed text keeps the rest of the meaning. No
    constant; a question without such a noun or word gets the vector it had, and the prompt hook,
    whose gates are calibrated on the typed prompt's cosines, keeps its own (``hooks._context``).
    """
    spelled = kanji_spelling(text)
    said = question_words(text, spelled) if words else []
    if spelled is None and not said:
        return embedder.embed_query(text)
    # the question, its spelling and its words not embedded before, in one call (kept as words are)
    vector, each = WORD_VECTORS.of(embedder, text, [spelled, *said] if spelled is not None else said)
    if spelled is not None:
        vector = unit(vector + each.pop(0))
    if said:
        vector = unit(unit(vector) + unit(np.mean(np.stack(each), axis=0)))
    return vector


def embed_rows(
    embedder: Embedder,
    rows: Sequence[FactText],
    cache: dict[str, Vector] | None = None,
) -> list[Matrix]:
    """Vectors for each (content, context, keys) row, shape (pieces, dim): one embedder call per batch.

    The context's vector is the mean of the vectors of the turns it quotes — a line that is
    the first line of an earlier row reuses that row's first vector, so each turn is
    embedded once. A context that quotes no known turn is embedded itself, once (its tail).
    A row's keys are embedded as one text (``fact_texts``) and added with ``KEYS_WEIGHT``.
    ``cache`` carries the turn vectors from one batch to the next (the turns' own vectors,
    never moved by keys).
    """
    seen = cache if cache is not None else {}
    if len(seen) > CACHE_LINES:
        seen.clear()
    texts_of = [fact_texts(content, keys) for content, _, keys in rows]
    pieces = [per_row for per_row, _ in texts_of]
    mine = {_key(per_row[0]) for per_row in pieces if per_row}
    contexts = [_context_keys(context) for _, context, _ in rows]
    fresh: dict[str, str] = {}  # key -> text, for contexts that quote nothing known
    for lines, tail in contexts:  # a context's lines as turn keys (``_key``), not a fact's search keys
        if lines and not any(k in seen or k in mine for k in lines) and tail:
            fresh.setdefault("\x00" + tail, tail)
    keyed = [(i, text) for i, (_, text) in enumerate(texts_of) if text is not None]
    texts = [p for per_row in pieces for p in per_row] + list(fresh.values()) + [text for _, text in keyed]
    vectors = embedder.embed_documents(texts) if texts else np.zeros((0, 1), dtype=np.float32)
    n_pieces = len(texts) - len(fresh) - len(keyed)
    seen.update(zip(fresh, vectors[n_pieces : n_pieces + len(fresh)], strict=True))
    keys_vectors = dict(zip((i for i, _ in keyed), vectors[n_pieces + len(fresh) :], strict=True))
    own_vectors: list[Matrix] = []
    start = 0
    for per_row in pieces:
        own_vectors.append(vectors[start : start + len(per_row)])
        if per_row:
            seen[_key(per_row[0])] = vectors[start]
        start += len(per_row)
    out: list[Matrix] = []
    for i, (own, (lines, tail)) in enumerate(zip(own_vectors, contexts, strict=True)):
        # ``get``, never test-then-index: worker threads share ``cache`` and one may clear it meanwhile
        quoted = [v for v in (seen.get(k) for k in lines) if v is not None]
        fallback = seen.get("\x00" + tail) if lines else None
        found = list({id(v): v for v in quoted}.values()) or ([fallback] if fallback is not None else [])
        meant = keys_vectors.get(i)
        if found:
            mean = np.mean(found, axis=0)
            own = own + CONTEXT_WEIGHT * unit(mean)
        if meant is not None:
            own = own + KEYS_WEIGHT * unit(meant)
        if found or meant is not None:
            own = unit(own)
        out.append(np.ascontiguousarray(own, dtype=np.float32))
    return out
