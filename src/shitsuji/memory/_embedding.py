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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._embedders import Embedder, Matrix, Vector
from ._text import chunks

VECTOR_CHUNKS = 1  # chunks of a memory that get vectors
CONTEXT_CHARS = 1000  # context tail that shapes the vectors
CONTEXT_WEIGHT = (
    1.0  # of the context's vector, added to each chunk's before normalising (LoCoMo dev, leave-one-out)
)
CACHE_LINES = 4096  # context lines kept between batches of one indexing run
KEY_CHARS = 200  # a context line and the turn it quotes are matched on this much of its first line
CONTEXT_FALLBACK_CHARS = 400  # embedded when a context quotes no known turn


def vector_pieces(content: str) -> list[str]:
    """The chunks of ``content`` that get vectors."""
    return chunks(content)[:VECTOR_CHUNKS]


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


def embed_rows(
    embedder: Embedder,
    rows: Sequence[tuple[str, str | None]],
    cache: dict[str, Vector] | None = None,
) -> list[Matrix]:
    """Vectors for each (content, context) row, shape (pieces, dim): one embedder call per batch.

    The context's vector is the mean of the vectors of the turns it quotes — a line that is
    the first line of an earlier row reuses that row's first vector, so each turn is
    embedded once. A context that quotes no known turn is embedded itself, once (its tail).
    ``cache`` carries the turn vectors from one batch to the next.
    """
    seen = cache if cache is not None else {}
    if len(seen) > CACHE_LINES:
        seen.clear()
    pieces = [vector_pieces(content) for content, _ in rows]
    mine = {_key(per_row[0]) for per_row in pieces if per_row}
    contexts = [_context_keys(context) for _, context in rows]
    fresh: dict[str, str] = {}  # key -> text, for contexts that quote nothing known
    for keys, tail in contexts:
        if keys and not any(k in seen or k in mine for k in keys) and tail:
            fresh.setdefault("\x00" + tail, tail)
    texts = [p for per_row in pieces for p in per_row] + list(fresh.values())
    vectors = embedder.embed_documents(texts) if texts else np.zeros((0, 1), dtype=np.float32)
    n_pieces = len(texts) - len(fresh)
    seen.update(zip(fresh, vectors[n_pieces:], strict=True))
    own_vectors: list[Matrix] = []
    start = 0
    for per_row in pieces:
        own_vectors.append(vectors[start : start + len(per_row)])
        if per_row:
            seen[_key(per_row[0])] = vectors[start]
        start += len(per_row)
    out: list[Matrix] = []
    for own, (keys, tail) in zip(own_vectors, contexts, strict=True):
        # ``get``, never test-then-index: worker threads share ``cache`` and one may clear it meanwhile
        quoted = [v for v in (seen.get(k) for k in keys) if v is not None]
        fallback = seen.get("\x00" + tail) if keys else None
        found = list({id(v): v for v in quoted}.values()) or ([fallback] if fallback is not None else [])
        if found:
            mean = np.mean(found, axis=0)
            own = own + CONTEXT_WEIGHT * mean / max(float(np.linalg.norm(mean)), 1e-12)
            own = own / np.maximum(np.linalg.norm(own, axis=1, keepdims=True), 1e-12)
        out.append(np.ascontiguousarray(own, dtype=np.float32))
    return out
