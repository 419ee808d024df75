"""An exact in-process vector index over one embedding model's vectors.

Exact search with numpy is ~5-8 ms per query at 100k vectors on two cores, fast enough
that an approximate index (slow to build, another dependency) is not worth it yet; see
docs/benchmarks.md. The index is a cache of the database, topped up by the store from
rows it has not seen yet.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._slots import Match, Slots, grown


class VectorIndex:
    """Unit vectors, one slot per chunk of a memory."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.last_seq = 0
        self.slots = Slots()
        self._matrix: npt.NDArray[np.float32] = np.zeros((self.slots.capacity, dim), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, memory_id: str, scope: str, vectors: npt.NDArray[np.float32]) -> None:
        """Index a memory's chunk vectors, shape (chunks, dim)."""
        slots = self.slots.add(memory_id, scope, len(vectors))
        while slots.stop > len(self._matrix):
            self._matrix = grown(self._matrix)
        self._matrix[slots.start : slots.stop] = vectors

    def search(self, query: npt.NDArray[np.float32], scopes: Sequence[str], limit: int) -> list[Match]:
        mask = self.slots.mask(scopes)
        if mask is None:
            return []
        sims = self._matrix[: self.slots.size] @ query.astype(np.float32, copy=False)
        return self.slots.best_per_memory(sims, mask, limit)
