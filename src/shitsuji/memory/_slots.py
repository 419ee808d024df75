"""Row slots shared by the in-process indexes: which memory, which scope, still alive.

Both the vector index and the keyword index are caches of database rows laid out in
arrays; a slot is a row's position in those arrays. Re-adding a memory kills its old
slot, forgetting it kills the slot, and a scope filter becomes one vectorised mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

G = TypeVar("G", bound=np.generic)


class Slots:
    def __init__(self, capacity: int = 1024) -> None:
        self.size = 0
        self.ids: list[str] = []
        self._slot_of: dict[str, int] = {}
        self._codes: npt.NDArray[np.int32] = np.zeros(capacity, dtype=np.int32)
        self._alive: npt.NDArray[np.bool_] = np.zeros(capacity, dtype=np.bool_)
        self._code_of_scope: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._slot_of)

    @property
    def capacity(self) -> int:
        return len(self._codes)

    def add(self, memory_id: str, scope: str) -> int:
        """Append a slot for ``memory_id`` (killing any older one) and return it."""
        self.kill(memory_id)
        if self.size == self.capacity:
            self._codes = _grown(self._codes)
            self._alive = _grown(self._alive)
        slot = self.size
        self.size += 1
        self._codes[slot] = self._code_of_scope.setdefault(scope, len(self._code_of_scope))
        self._alive[slot] = True
        self.ids.append(memory_id)
        self._slot_of[memory_id] = slot
        return slot

    def kill(self, memory_id: str) -> None:
        slot = self._slot_of.pop(memory_id, None)
        if slot is not None:
            self._alive[slot] = False

    def mask(self, scopes: Sequence[str]) -> npt.NDArray[np.bool_] | None:
        """Live slots whose scope is one of ``scopes``; None when no slot can match."""
        codes = [self._code_of_scope[s] for s in scopes if s in self._code_of_scope]
        if not codes or self.size == 0:
            return None
        n = self.size
        if len(codes) == 1:
            mask = self._codes[:n] == codes[0]
        else:
            mask = np.isin(self._codes[:n], codes)
        live: npt.NDArray[np.bool_] = mask & self._alive[:n]
        return live


def top_slots(scores: npt.NDArray[np.floating], mask: npt.NDArray[np.bool_], limit: int) -> list[int]:
    """Indices of the ``limit`` best scores among masked slots, best first."""
    candidates = np.flatnonzero(mask)
    if limit <= 0 or candidates.size == 0:
        return []
    picked = scores[candidates]
    if candidates.size > limit:
        part = np.argpartition(-picked, limit - 1)[:limit]
        candidates, picked = candidates[part], picked[part]
    order = np.argsort(-picked, kind="stable")
    return [int(i) for i in candidates[order]]


def _grown(array: npt.NDArray[G]) -> npt.NDArray[G]:
    bigger = np.zeros((len(array) * 2, *array.shape[1:]), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger
