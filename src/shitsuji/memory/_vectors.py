"""An exact in-process vector index over one embedding model's vectors.

Exact search with numpy is ~5 ms per query at 100k x 384 on two cores, fast enough
that an approximate index (slow to build, another dependency) is not worth it yet; see
docs/benchmarks.md. The index is a cache of the database: it is filled from rows with a
sequence number above the last one seen, so other processes' writes are picked up, and
rows deleted elsewhere are filtered by the caller when it reads them back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


class VectorIndex:
    """Rows of unit vectors, each tagged with a memory id and a scope."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.last_seq = 0
        self._size = 0
        self._matrix = np.zeros((1024, dim), dtype=np.float32)
        self._scope_codes = np.zeros(1024, dtype=np.int32)
        self._alive = np.zeros(1024, dtype=bool)
        self._ids: list[str] = []
        self._slot_of: dict[str, int] = {}
        self._code_of_scope: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._slot_of)

    def add(self, memory_id: str, scope: str, vector: npt.NDArray[np.float32]) -> None:
        self.remove(memory_id)
        if self._size == len(self._matrix):
            self._grow()
        slot = self._size
        self._size += 1
        self._matrix[slot] = vector
        self._scope_codes[slot] = self._code_of_scope.setdefault(scope, len(self._code_of_scope))
        self._alive[slot] = True
        self._ids.append(memory_id)
        self._slot_of[memory_id] = slot

    def remove(self, memory_id: str) -> None:
        slot = self._slot_of.pop(memory_id, None)
        if slot is not None:
            self._alive[slot] = False

    def search(
        self, query: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        codes = [self._code_of_scope[s] for s in scopes if s in self._code_of_scope]
        if not codes or limit <= 0 or self._size == 0:
            return []
        n = self._size
        if len(codes) == 1:
            mask = self._scope_codes[:n] == codes[0]
        else:
            mask = np.isin(self._scope_codes[:n], codes)
        mask &= self._alive[:n]
        sims = self._matrix[:n] @ query.astype(np.float32, copy=False)
        sims[~mask] = -np.inf
        k = min(limit, int(mask.sum()))
        if k == 0:
            return []
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(self._ids[i], float(sims[i])) for i in top]

    def _grow(self) -> None:
        size = len(self._matrix) * 2
        matrix = np.zeros((size, self.dim), dtype=np.float32)
        matrix[: self._size] = self._matrix[: self._size]
        codes = np.zeros(size, dtype=np.int32)
        codes[: self._size] = self._scope_codes[: self._size]
        alive = np.zeros(size, dtype=bool)
        alive[: self._size] = self._alive[: self._size]
        self._matrix, self._scope_codes, self._alive = matrix, codes, alive
