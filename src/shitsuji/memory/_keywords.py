"""An in-process BM25 keyword index over the rows' precomputed terms.

Why not SQLite FTS5: at 100k memories in one scope, FTS5 had to score every row that
shares a common term and join each back to its row for the scope check, 25-45 ms per
query here; posting arrays scored with numpy answer in a few ms (docs/benchmarks.md).
Terms come from ``_text.terms`` (character bigrams for Japanese, stemmed words for
English), so the index itself is language-blind.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._slots import Match, Slots, _grown

K1 = 1.2
B = 0.75


class _Postings:
    """Slots and term frequencies of one term, appendable, viewed as arrays."""

    __slots__ = ("_arrays", "slots", "tfs")

    def __init__(self) -> None:
        self.slots: list[int] = []
        self.tfs: list[int] = []
        self._arrays: tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]] | None = None

    def append(self, slot: int, tf: int) -> None:
        self.slots.append(slot)
        self.tfs.append(tf)
        self._arrays = None

    def arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        if self._arrays is None:
            self._arrays = (np.asarray(self.slots, dtype=np.int64), np.asarray(self.tfs, dtype=np.float64))
        return self._arrays


class KeywordIndex:
    """BM25 (k1=1.2, b=0.75) over term lists, one slot per chunk of a memory."""

    def __init__(self) -> None:
        self.last_rowid = 0  # rows up to here are loaded, for the scopes below
        self.loaded_scopes: set[str] = set()
        self.slots = Slots()
        self._postings: dict[str, _Postings] = {}
        self._lengths: npt.NDArray[np.float64] = np.zeros(self.slots.capacity, dtype=np.float64)
        self._total_length = 0.0

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, memory_id: str, scope: str, chunk_terms: Sequence[Sequence[str]]) -> None:
        """Index a memory's terms, one list per chunk."""
        slots = self.slots.add(memory_id, scope, len(chunk_terms))
        while slots.stop > len(self._lengths):
            self._lengths = _grown(self._lengths)
        for slot, terms in zip(slots, chunk_terms, strict=True):
            self._lengths[slot] = len(terms)
            self._total_length += len(terms)
            for term, tf in Counter(terms).items():
                postings = self._postings.get(term)
                if postings is None:
                    postings = self._postings[term] = _Postings()
                postings.append(slot, tf)

    def kill(self, memory_id: str) -> None:
        self.slots.kill(memory_id)

    def search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        mask = self.slots.mask(scopes)
        if mask is None or not terms:
            return []
        n = self.slots.size
        docs = max(self.slots.live, 1)
        avg = self._total_length / n or 1.0
        norm = K1 * (1.0 - B + B * self._lengths[:n] / avg)
        scores = np.zeros(n, dtype=np.float64)
        matched = False
        for term in dict.fromkeys(terms):
            postings = self._postings.get(term)
            if postings is None:
                continue
            slots, tfs = postings.arrays()
            idf = math.log(1.0 + (docs - len(slots) + 0.5) / (len(slots) + 0.5))
            scores[slots] += idf * tfs * (K1 + 1.0) / (tfs + norm[slots])
            matched = True
        if not matched:
            return []
        mask &= scores > 0
        return self.slots.best_per_memory(scores, mask, limit)
