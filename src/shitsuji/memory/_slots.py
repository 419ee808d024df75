"""Row slots shared by the in-process indexes: which memory, which scope, still alive.

Both the vector index and the keyword index are caches of database rows laid out in
arrays; a slot is one chunk of a row (most memories are one chunk). Re-adding a memory
kills its old slots, forgetting it kills them, and a scope filter becomes one vectorised
mask. Searches rank slots, then keep each memory's best chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

G = TypeVar("G", bound=np.generic)
#: ``_largest``'s block: a bound from each block's largest score (at 100k, 390 blocks for the first 60)
BLOCK = 256


class Match(NamedTuple):
    """A memory found by one index: its id, the index's raw score, and the chunk that matched."""

    memory_id: str
    score: float
    chunk: int = 0


#: ``MemoryStore.candidates``' arguments and answer: the query's terms and vector (None: that search
#: is not wanted), and each signal's matches, best first.
Terms = Sequence[str] | None
Asked = npt.NDArray[np.float32] | None
Ranked = dict[str, list[Match]]


class Slots:
    def __init__(self, capacity: int = 1024) -> None:
        self.size = 0
        self.live = 0  # live slots
        self.ids: list[str] = []
        self.chunk: list[int] = []
        self._slots_of: dict[str, range] = {}
        self._codes: npt.NDArray[np.int32] = np.zeros(capacity, dtype=np.int32)
        self._alive: npt.NDArray[np.bool_] = np.zeros(capacity, dtype=np.bool_)
        self._code_of_scope: dict[str, int] = {}
        # the last mask asked for, by (scope codes, size, live): slots only ever append (size grows)
        # or die (live falls), so a state never comes back with the same pair and a stale mask
        # cannot be served. Recall asks twice per query (keywords, vectors) over 100k slots.
        self._last_mask: tuple[tuple[tuple[int, ...], int, int], npt.NDArray[np.bool_]] | None = None

    def __len__(self) -> int:
        return len(self._slots_of)

    @property
    def capacity(self) -> int:
        return len(self._codes)

    def add(self, memory_id: str, scope: str, count: int = 1) -> range:
        """Append ``count`` slots (chunks) for ``memory_id``, killing any older ones."""
        self.kill(memory_id)
        while self.size + count > self.capacity:
            self._codes = grown(self._codes)
            self._alive = grown(self._alive)
        slots = range(self.size, self.size + count)
        self.size += count
        self._codes[slots.start : slots.stop] = self._code_of_scope.setdefault(
            scope, len(self._code_of_scope)
        )
        self._alive[slots.start : slots.stop] = True
        self.live += count
        self.ids.extend([memory_id] * count)
        self.chunk.extend(range(count))
        self._slots_of[memory_id] = slots
        return slots

    def add_many(self, memories: Sequence[tuple[str, str, int]]) -> int:
        """Append slots for many (memory id, scope, chunk count) at once; the first new slot.

        The same as ``add`` for each, in order, with the array work done once (a cold start).
        """
        start = self.size
        counts = [count for _, _, count in memories]
        total = sum(counts)
        while self.size + total > self.capacity:
            self._codes = grown(self._codes)
            self._alive = grown(self._alive)
        code_of = dict.fromkeys([scope for _, scope, _ in memories], 0)
        for scope in code_of:
            code_of[scope] = self._code_of_scope.setdefault(scope, len(self._code_of_scope))
        codes = [code_of[scope] for _, scope, _ in memories]
        self._codes[start : start + total] = np.repeat(np.asarray(codes, dtype=np.int32), counts)
        self._alive[start : start + total] = True
        self.size += total
        self.live += total
        if total == len(memories):  # one chunk each, the common case: no per-row list work
            self.ids.extend(memory_id for memory_id, _, _ in memories)
            self.chunk.extend([0] * total)
        else:
            for memory_id, _, count in memories:
                self.ids.extend([memory_id] * count)
                self.chunk.extend(range(count))
        slots_of = self._slots_of
        slot = start
        for memory_id, _, count in memories:
            if memory_id in slots_of:  # an older copy: loaded before, or earlier in this batch
                self.kill(memory_id)
            slots_of[memory_id] = range(slot, slot + count)
            slot += count
        return start

    def scopes(self) -> list[str]:
        """Scope names, indexed by their code."""
        return list(self._code_of_scope)

    def code(self, slot: int) -> int:
        return int(self._codes[slot])

    def memories(self) -> list[str]:
        """Live memory ids in slot order."""
        return [m for m, _ in sorted(self._slots_of.items(), key=lambda item: item[1].start)]

    def slots_of(self, memory_id: str) -> range:
        return self._slots_of[memory_id]

    def kill(self, memory_id: str) -> None:
        slots = self._slots_of.pop(memory_id, None)
        if slots is not None:
            self._alive[slots.start : slots.stop] = False
            self.live -= len(slots)

    def live_among(self, slots: npt.NDArray[np.int64]) -> int:
        """How many of ``slots`` are alive (forgotten rows keep their slots until a rebuild)."""
        if self.live == self.size:
            return len(slots)
        return int(np.count_nonzero(self._alive[slots]))

    def best_per_memory(
        self, scores: npt.NDArray[np.floating], mask: npt.NDArray[np.bool_], limit: int
    ) -> list[Match]:
        """The ``limit`` best memories among masked slots, each with its best chunk, best first."""
        out: dict[str, Match] = {}
        want = limit
        while True:
            ranked = top_slots(scores, mask, want)
            for slot in ranked:
                memory_id = self.ids[slot]
                if memory_id not in out:
                    out[memory_id] = Match(memory_id, float(scores[slot]), self.chunk[slot])
                    if len(out) == limit:
                        return list(out.values())
            if len(ranked) < want:  # every masked slot seen
                return list(out.values())
            out.clear()
            want *= 4

    def mask(self, scopes: Sequence[str]) -> npt.NDArray[np.bool_] | None:
        """Live slots whose scope is one of ``scopes``; None when no slot can match."""
        codes = [self._code_of_scope[s] for s in scopes if s in self._code_of_scope]
        if not codes or self.size == 0:
            return None
        n = self.size
        key = (tuple(codes), n, self.live)
        if self._last_mask is not None and self._last_mask[0] == key:
            return self._last_mask[1].copy()  # callers narrow it in place
        if len(codes) == 1:
            mask = self._codes[:n] == codes[0]
        else:
            mask = np.isin(self._codes[:n], codes)
        live: npt.NDArray[np.bool_] = mask & self._alive[:n]
        self._last_mask = (key, live.copy())
        return live


def top_slots(scores: npt.NDArray[np.floating], mask: npt.NDArray[np.bool_], limit: int) -> list[int]:
    """Indices of the ``limit`` best scores among masked slots, best first."""
    masked = int(np.count_nonzero(mask))
    if limit <= 0 or masked == 0:
        return []
    # every slot masked in (one scope holds the index): the scores themselves, and a slot is its
    # position — no list of every slot's index (100k at 100k memories, the vector scan's case)
    candidates = None if masked == scores.size else np.flatnonzero(mask)
    picked = scores if candidates is None else scores[candidates]
    if masked > limit:
        part = _largest(picked, limit)
        if part is None:
            part = np.argpartition(-picked, limit - 1)[:limit]
        candidates, picked = (part if candidates is None else candidates[part]), picked[part]
    order = np.argsort(-picked, kind="stable")
    best: list[int] = (order if candidates is None else candidates[order]).tolist()
    return best


def _largest(picked: npt.NDArray[np.floating], limit: int) -> npt.NDArray[np.intp] | None:
    """The positions of the ``limit`` largest of ``picked`` when no two of them (nor the largest left
    out) are equal, else None (the caller's ``argpartition`` then decides, as it always did).

    A selection over all of ``picked`` (100k scores at 100k memories: ~1 ms, as much as the exact
    floor's own top 10) is done on the few that can be among them: each of ``BLOCK``-sized blocks
    has a largest value, at least ``limit`` blocks hold a value as large as the ``limit``-th largest
    of those, so every one of the ``limit`` largest is at least that. Without ties the ``limit``
    largest and their order are the same whichever way they are found.
    """
    blocks = len(picked) // BLOCK
    if blocks < limit * 2:
        return None
    heads = picked[: blocks * BLOCK].reshape(blocks, BLOCK).max(axis=1)
    bound = np.partition(heads, blocks - limit)[blocks - limit]
    if np.isnan(bound):
        return None
    near = np.flatnonzero(picked >= bound)
    if len(near) < limit:  # NaN among them: never at least the bound
        return None
    values = picked[near]
    order = np.argsort(-values, kind="stable")[: limit + 1]
    kept = values[order]
    if np.any(kept[1:] == kept[:-1]):  # a tie among them or at the cut
        return None
    return near[order[:limit]]


def grown(array: npt.NDArray[G]) -> npt.NDArray[G]:
    bigger = np.zeros((len(array) * 2, *array.shape[1:]), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger
