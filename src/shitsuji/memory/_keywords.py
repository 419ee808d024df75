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
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._slots import Match, Slots, grown

K1 = 1.2
B = 0.75


def bm25(
    rows: Sequence[tuple[str, str]], terms: Sequence[str], docs: int, length: int, limit: int
) -> list[Match]:
    """Each row's best chunk by BM25, best first, scored as ``KeywordIndex.search`` scores it.

    ``rows`` (id, stored terms) are every row of the searched collection holding any of
    ``terms`` (distinct), so document frequencies are counted from them; ``docs`` is the
    collection's chunk count and ``length`` its total number of terms. A database that
    finds the rows with its own index (PostgreSQL's GIN) scores them here.
    """
    found: list[tuple[str, int, int, dict[str, int]]] = []
    held: Counter[str] = Counter()
    for memory_id, stored in rows:
        for chunk, line in enumerate(stored.split("\n")):
            words = line.split()
            counts = Counter(words)  # counted in C: the hot loop of a large scope
            tf = {t: counts[t] for t in terms if t in counts}
            if tf:
                found.append((memory_id, chunk, len(words), tf))
                held.update(tf.keys())
    docs = max(docs, 1)
    avg = length / docs or 1.0
    idf = {t: math.log(1.0 + (docs - held[t] + 0.5) / (held[t] + 0.5)) for t in held}
    best: dict[str, Match] = {}
    for memory_id, chunk, size, tf in found:
        norm = K1 * (1.0 - B + B * size / avg)
        score = 0.0
        for term in terms:
            if term in tf:
                score += idf[term] * tf[term] * (K1 + 1.0) / (tf[term] + norm)
        if score > 0 and (memory_id not in best or score > best[memory_id].score):
            best[memory_id] = Match(memory_id, score, chunk)
    return sorted(best.values(), key=lambda m: -m.score)[:limit]


def snapshot(rows: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """One scope's rows (id, scope, stored terms) as plain data ``KeywordIndex.load_snapshot`` takes.

    Slots count from 0 within the snapshot; JSON-ready, so it can be stored and read back
    safely (loading it costs a few ms where splitting and indexing the rows costs tens).
    """
    lengths: list[int] = []
    postings: dict[str, list[int]] = {}
    # each row is split only while it is indexed, so no row's words outlive its turn (peak memory)
    _post((_split(stored) for _, _, stored in rows), postings, lengths, 0)
    ids = [memory_id for memory_id, _, _ in rows]
    counts = [stored.count("\n") + 1 for _, _, stored in rows]
    return {"ids": ids, "counts": counts, "lengths": lengths, "postings": postings}


def _split(stored: str) -> list[list[str]]:
    """Stored terms: one line per chunk, space-separated."""
    return [line.split() for line in stored.split("\n")]


def _post(
    chunked: Iterable[Sequence[Sequence[str]]], postings: dict[str, list[int]], lengths: list[int], slot: int
) -> int:
    """Add each chunk's terms to ``postings`` under consecutive slots from ``slot``; the next free slot."""
    for chunks in chunked:
        for terms in chunks:  # the hot loop of a cold start: keep it to a dict lookup and an append
            lengths.append(len(terms))
            for term in terms:
                holders = postings.get(term)
                if holders is None:
                    postings[term] = [slot]
                else:
                    holders.append(slot)
            slot += 1
    return slot


def _well_formed(ids: Any, counts: Any, lengths: Any, postings: Any) -> bool:
    """Shapes, types and slot ranges, checked before anything is loaded (a damaged file is ignored)."""
    if not (isinstance(ids, list) and isinstance(counts, list) and isinstance(lengths, list)):
        return False
    if not isinstance(postings, dict) or len(ids) != len(counts):
        return False
    if not all(type(c) is int and c >= 1 for c in counts) or len(lengths) != sum(counts):
        return False
    if not all(type(x) is int for x in lengths) or not all(type(m) is str for m in ids):
        return False
    total = len(lengths)
    return all(
        type(held) is list and (not held or (min(held) >= 0 and max(held) < total))
        for held in postings.values()
    )


def well_formed(snapshot: Any) -> bool:
    """Whether ``snapshot`` (parsed JSON) would load: what ``load_snapshot`` checks first."""
    if not isinstance(snapshot, dict):
        return False
    return _well_formed(*(snapshot.get(k) for k in ("ids", "counts", "lengths", "postings")))


class KeywordIndex:
    """BM25 (k1=1.2, b=0.75) over term lists, one slot per chunk of a memory."""

    def __init__(self) -> None:
        self.last_rowid = 0  # rows up to here are loaded, for the scopes below
        self.loaded_scopes: set[str] = set()
        self.slots = Slots()
        # term -> slots holding it, a slot repeated once per occurrence (so counts are tf);
        # arrays are built on first query of a term and rebuilt only after it grew
        self._postings: dict[str, list[int]] = {}
        self._arrays: dict[str, tuple[int, npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
        # term -> (the index's state it was computed in, each holder's BM25 share): the same question
        # asked again while no row came or went adds these instead of computing them (``_shares``)
        self._shares: dict[
            str, tuple[tuple[int, int, float], npt.NDArray[np.int64], npt.NDArray[np.float64]]
        ] = {}
        self._lengths: npt.NDArray[np.float64] = np.zeros(self.slots.capacity, dtype=np.float64)
        self._total_length = 0.0

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, memory_id: str, scope: str, chunk_terms: Sequence[Sequence[str]]) -> None:
        """Index a memory's terms, one list per chunk."""
        slots = self.slots.add(memory_id, scope, len(chunk_terms))
        while slots.stop > len(self._lengths):
            self._lengths = grown(self._lengths)
        lengths: list[int] = []
        _post([chunk_terms], self._postings, lengths, slots.start)
        self._lengths[slots.start : slots.stop] = lengths
        self._total_length += sum(lengths)

    def add_many(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Index many memories at once: (id, scope, stored terms — one line per chunk, space-separated).

        What a cold start does with every row of a scope; the same result as ``add`` per row.
        """
        # chunks counted without splitting; each row is split only while it is indexed (peak memory)
        start = self.slots.add_many(
            [(memory_id, scope, stored.count("\n") + 1) for memory_id, scope, stored in rows]
        )
        while self.slots.size > len(self._lengths):
            self._lengths = grown(self._lengths)
        lengths: list[int] = []
        end = _post((_split(stored) for _, _, stored in rows), self._postings, lengths, start)
        self._lengths[start:end] = lengths
        self._total_length += sum(lengths)

    def export(self, scope: str) -> dict[str, Any] | None:
        """This index as ``scope``'s snapshot, when it holds that scope alone and nothing was killed (else None).

        A cold load of one scope is exactly that: its snapshot shares this index's postings
        instead of building them again (at 100k rows a second copy costs ~100 MB).
        """
        slots = self.slots
        if slots.scopes() != [scope] or slots.live != slots.size:
            return None
        ids = list(slots.memories())
        counts = [len(slots.slots_of(memory_id)) for memory_id in ids]
        lengths = [int(x) for x in self._lengths[: slots.size]]
        return {"ids": ids, "counts": counts, "lengths": lengths, "postings": self._postings}

    def load_snapshot(self, scope: str, snapshot: dict[str, Any]) -> None:
        """Add one scope's memories from a ``snapshot`` (see ``snapshot``): no row is read or split.

        Raises ``ValueError`` when the snapshot is not well formed (nothing is added then).
        """
        ids, counts, lengths, postings = (snapshot.get(k) for k in ("ids", "counts", "lengths", "postings"))
        if not _well_formed(ids, counts, lengths, postings):
            raise ValueError("malformed keyword snapshot")
        assert isinstance(ids, list) and isinstance(counts, list) and isinstance(lengths, list)
        assert isinstance(postings, dict)
        start = self.slots.add_many([(m, scope, c) for m, c in zip(ids, counts, strict=True)])
        while self.slots.size > len(self._lengths):
            self._lengths = grown(self._lengths)
        self._lengths[start : start + len(lengths)] = lengths
        self._total_length += sum(lengths)
        mine = self._postings
        for term, held in postings.items():
            shifted = [start + slot for slot in held] if start else held
            found = mine.get(term)
            if found is None:
                mine[term] = shifted
            else:
                found.extend(shifted)

    def kill(self, memory_id: str) -> None:
        self.slots.kill(memory_id)

    def search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        mask = self.slots.mask(scopes)
        if mask is None or not terms:
            return []
        n = self.slots.size
        docs = max(self.slots.live, 1)
        avg = self._total_length / n or 1.0
        scores = np.zeros(n, dtype=np.float64)
        matched = False
        for term in dict.fromkeys(terms):
            found = self._term_arrays(term)
            if found is None:
                continue
            slots, tfs = found
            scores[slots] += self._shares_of(term, slots, tfs, docs, avg)
            matched = True
        if not matched:
            return []
        mask &= scores > 0
        return self.slots.best_per_memory(scores, mask, limit)

    def _shares_of(
        self, term: str, slots: npt.NDArray[np.int64], tfs: npt.NDArray[np.float64], docs: int, avg: float
    ) -> npt.NDArray[np.float64]:
        """Each holder's BM25 share for ``term``, kept until a row comes or goes (they depend on the
        holders — the same ``slots`` array while they do not change — the slots' count and liveness
        and the lengths' sum alone: slots only append, and only a kill lowers ``live``)."""
        state = (self.slots.size, self.slots.live, self._total_length)
        cached = self._shares.get(term)
        if cached is not None and cached[0] == state and cached[1] is slots:
            return cached[2]
        # holders counted among the live slots, as ``docs`` is: a term of every row (the day said)
        # held by forgotten slots too would count more holders than documents, a negative idf
        held = self.slots.live_among(slots)
        idf = math.log(1.0 + (docs - held + 0.5) / (held + 0.5))
        # the length norm of the holders only (the same values as over every slot, ~100x fewer)
        norm = K1 * (1.0 - B + B * self._lengths[slots] / avg)
        shares = idf * tfs * (K1 + 1.0) / (tfs + norm)
        self._shares[term] = (state, slots, shares)
        return shares

    def _term_arrays(self, term: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]] | None:
        """Distinct slots holding ``term`` and its frequency in each."""
        holders = self._postings.get(term)
        if holders is None:
            return None
        cached = self._arrays.get(term)
        if cached is not None and cached[0] == len(holders):
            return cached[1], cached[2]
        slots, counts = np.unique(np.asarray(holders, dtype=np.int64), return_counts=True)
        tfs = counts.astype(np.float64)
        self._arrays[term] = (len(holders), slots, tfs)
        return slots, tfs
