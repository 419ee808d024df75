"""An exact in-process vector index over one embedding model's vectors.

Exact search with numpy is ~5-8 ms per query at 100k vectors on two cores, fast enough
that an approximate index (slow to build, another dependency) is not worth it yet; see
docs/benchmarks.md. The index is a cache of the database, topped up by the store from
rows it has not seen yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._slots import Match, Slots, grown

OWN_MIN_BYTES = 4 << 20  # smaller mapped matrices stay mapped: their pages fit the TLB's reach anyway


class VectorIndex:
    """Unit vectors, one slot per chunk of a memory."""

    def __init__(self, dim: int, capacity: int = 1024) -> None:
        self.dim = dim
        self.last_seq = 0
        self.slots = Slots(max(capacity, 1))
        self._matrix: npt.NDArray[np.float32] = np.zeros((self.slots.capacity, dim), dtype=np.float32)
        self._searched = False  # a mapped matrix was searched once (``_own_when_searched_again``)

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, memory_id: str, scope: str, vectors: npt.NDArray[np.float32]) -> None:
        """Index a memory's chunk vectors, shape (chunks, dim)."""
        slots = self.slots.add(memory_id, scope, len(vectors))
        if not self._matrix.flags.writeable:  # a mapped snapshot: copy before the first write
            self._matrix = np.array(self._matrix)
        while slots.stop > len(self._matrix):
            self._matrix = grown(self._matrix)
        self._matrix[slots.start : slots.stop] = vectors

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` more slots at once (a cold load knows its size: no doubling and copying)."""
        need = self.slots.size + rows
        if need > len(self._matrix):
            bigger = np.zeros((need, self.dim), dtype=np.float32)
            bigger[: self.slots.size] = self._matrix[: self.slots.size]
            self._matrix = bigger

    def first_vectors(self, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The first chunk's vector of each indexed memory among ``memory_ids``."""
        out: dict[str, npt.NDArray[np.float32]] = {}
        for memory_id in memory_ids:
            try:
                out[memory_id] = self._matrix[self.slots.slots_of(memory_id).start]
            except KeyError:
                continue
        return out

    def export(self) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """The live slots as (matrix, layout) for ``load_snapshot``: ids, scopes, chunk counts."""
        slots = self.slots
        ids = slots.memories()
        ranges = [slots.slots_of(m) for m in ids]
        names = slots.scopes()
        rows = np.asarray([i for r in ranges for i in r], dtype=np.int64)
        layout = {
            "ids": ids,
            "scope_names": names,
            "scopes": [slots.code(r.start) for r in ranges],  # index into scope_names
            "counts": [len(r) for r in ranges],
        }
        if slots.live == slots.size:  # no dead slot: the live ones are the first ``size``, in order
            return self._matrix[: slots.size], layout
        return self._matrix[rows], layout

    def _own_when_searched_again(self) -> None:
        """Copy a large mapped snapshot into the process at its second search (under the lock).

        A scan of the mapping ran ~21 % slower than of the same vectors in the process's own
        memory: numpy keeps a large array on 2 MiB pages, a file cached in 4 KiB pages is mapped
        4 KiB at a time (docs/benchmarks.md, issue 23 fl23). A one-shot process (the prompt hook
        alone) searches once and keeps the cheap mapping; a server searching the scope again
        pays the copy once (~0.1 s at 100,000 vectors) and then holds what it would have held
        had it loaded the scope from its rows.
        """
        matrix = self._matrix
        if matrix.flags.writeable or matrix.nbytes < OWN_MIN_BYTES:
            return
        if not self._searched:
            self._searched = True
            return
        self._matrix = np.array(matrix)

    def load_snapshot(self, matrix: npt.NDArray[np.float32], layout: dict[str, Any]) -> None:
        """Fill an empty index from a snapshot; a read-only (mapped) matrix is used in place.

        Raises ``ValueError`` when the layout does not fit the matrix.
        """
        ids, counts, names = layout["ids"], layout["counts"], layout["scope_names"]
        scopes = [names[code] for code in layout["scopes"]]
        if len(self.slots) or not (len(ids) == len(scopes) == len(counts)):
            raise ValueError("a vector snapshot loads into an empty index, with one scope and count per id")
        if matrix.ndim != 2 or matrix.shape[1] != self.dim or sum(counts) != len(matrix):
            raise ValueError("vector snapshot shape does not match its layout")
        self.slots.add_many(list(zip(ids, scopes, counts, strict=True)))
        self._matrix = matrix

    def search(self, query: npt.NDArray[np.float32], scopes: Sequence[str], limit: int) -> list[Match]:
        return self.scan(scopes)(query, limit)

    def scan(self, scopes: Sequence[str]) -> Scan:
        """The search over ``scopes`` as it stands, to run later without the caller's lock.

        Taken under the lock that guards this index; the returned function only reads what
        no later change writes: slots below the current size (``add`` appends past them, a
        growth or a mapped matrix's first write makes a new array), the scope mask (a copy),
        and the append-only id lists. So the matrix product — most of a recall at 100k —
        can run on another thread while the keyword search holds the lock (``SQLiteMemoryStore``).
        """
        mask = self.slots.mask(scopes)
        if mask is None:
            return _nothing
        self._own_when_searched_again()
        matrix, slots = self._matrix[: self.slots.size], self.slots

        def run(query: npt.NDArray[np.float32], limit: int) -> list[Match]:
            return slots.best_per_memory(matrix @ query.astype(np.float32, copy=False), mask, limit)

        return run


#: a search frozen by ``VectorIndex.scan``: (query, limit) -> the best matches
Scan = Callable[[npt.NDArray[np.float32], int], list[Match]]


def _nothing(query: npt.NDArray[np.float32], limit: int) -> list[Match]:
    return []
