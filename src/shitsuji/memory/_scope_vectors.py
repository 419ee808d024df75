"""One model's vectors in a SQLite database, one exact index per scope, each loaded when first searched.

A recall searches a scope and its ancestors, never the whole database; yet one matrix over
every row made the first recall in a fresh process read them all (32 s at 1M memories) and
every search multiply them all (p95 109 ms). Here a scope's vectors come into memory the
first time it is searched: read through the ``memories (scope, deleted_at)`` index (a
hundred rows: about a millisecond), or — for a scope of ``MIN_VECTORS`` or more — mapped
from its snapshot file (``_vector_snapshots``) plus the rows added since. A search
multiplies only the searched scopes' rows. Rows added after a scope was loaded are picked
up by embedding sequence number, as before; liveness changes (forget, restore, purge,
reindex) are the store's generation, which drops every loaded scope.
"""

from __future__ import annotations

import heapq
import logging
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ._rows import MAX_VARS, chunk_vectors, marks
from ._slots import Match
from ._vector_snapshots import MIN_VECTORS, read_snapshot, snapshot_path, write_snapshot
from ._vectors import Scan, VectorIndex

log = logging.getLogger(__name__)

LOAD_PAGE = 5000  # rows of newer vectors read at a time (~10 MB of 512-d vectors)

_ROWS = (
    "SELECT e.seq, m.id, m.scope, e.vectors, e.chunks FROM memories m "
    "JOIN embeddings e ON e.memory_rowid = m.rowid "
)


class ScopeVectors:
    """The loaded scopes' vector indexes of one model; ``last_seq``: every loaded scope is complete to it."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id = model_id
        self.dim = dim
        self.last_seq = 0
        self.indexes: dict[str, VectorIndex] = {}
        self._scope_of: dict[str, str] = {}  # memory id -> its loaded scope

    def __len__(self) -> int:
        return len(self._scope_of)

    def add(self, memory_id: str, scope: str, vectors: npt.NDArray[np.float32]) -> None:
        """Index a memory of a loaded scope (a memory moved from another scope leaves it)."""
        old = self._scope_of.get(memory_id)
        if old is not None and old != scope:
            self.indexes[old].slots.kill(memory_id)
        self.indexes[scope].add(memory_id, scope, vectors)
        self._scope_of[memory_id] = scope

    def kill(self, memory_id: str) -> None:
        scope = self._scope_of.pop(memory_id, None)
        if scope is not None:
            self.indexes[scope].slots.kill(memory_id)

    def drop(self, scope: str) -> None:
        """Forget a loaded scope (it loads again on its next search)."""
        index = self.indexes.pop(scope)
        for memory_id in index.slots.memories():
            self._scope_of.pop(memory_id, None)

    def first_vectors(self, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        by_scope: dict[str, list[str]] = {}
        for memory_id in memory_ids:
            scope = self._scope_of.get(memory_id)
            if scope is not None:
                by_scope.setdefault(scope, []).append(memory_id)
        out: dict[str, npt.NDArray[np.float32]] = {}
        for scope, ids in by_scope.items():  # one call per scope, not per memory (recall asks for ~100)
            out.update(self.indexes[scope].first_vectors(ids))
        return out

    def search(self, query: npt.NDArray[np.float32], scopes: Sequence[str], limit: int) -> list[Match]:
        """The ``limit`` best memories of the loaded ``scopes`` (each memory lives in one scope)."""
        return self.scan(scopes)(query, limit)

    def scan(self, scopes: Sequence[str]) -> Scan:
        """``search`` over the loaded ``scopes`` as they stand, to run without the lock (``VectorIndex.scan``)."""
        scans = [
            index.scan([scope])
            for scope in dict.fromkeys(scopes)
            if (index := self.indexes.get(scope)) is not None and len(index)
        ]

        def run(query: npt.NDArray[np.float32], limit: int) -> list[Match]:
            found = [match for scan in scans for match in scan(query, limit)]
            return heapq.nlargest(limit, found, key=lambda m: m.score)

        return run

    # -- loading ------------------------------------------------------------------------------

    def sync(
        self,
        database: db.Database,
        scopes: Sequence[str],
        *,
        path: str,
        generation: int,
        top: int | None = None,
    ) -> None:
        """Top the loaded scopes up with newer vectors, then load those of ``scopes`` not loaded yet
        (``top``: the last embedding seq, read by the caller under the file's lock; else read here)."""
        if top is None:
            top = int(database.execute("SELECT coalesce(max(seq), 0) FROM embeddings").fetchone()[0])
        if top > self.last_seq and self.indexes:
            self._top_up(database, top)
        missing = [s for s in dict.fromkeys(scopes) if s not in self.indexes]
        rest = [s for s in missing if not self._from_snapshot(database, s, top, path, generation)]
        for start in range(0, len(rest), MAX_VARS - 2):
            self._from_rows(database, rest[start : start + MAX_VARS - 2], top, path, generation)
        self.last_seq = top

    def _top_up(self, database: db.Database, top: int) -> None:
        seen = self.last_seq
        while True:  # in pages: a bulk import by another process never arrives in one piece
            rows = database.execute(
                _ROWS + "WHERE e.model = ? AND e.seq > ? AND e.seq <= ? AND m.deleted_at IS NULL "
                "ORDER BY e.seq LIMIT ?",
                (self.model_id, seen, top, LOAD_PAGE),
            ).fetchall()
            for _, memory_id, scope, blob, chunks in rows:
                if scope in self.indexes:
                    self.add(memory_id, scope, chunk_vectors(blob, chunks))
            if len(rows) < LOAD_PAGE:
                return
            seen = rows[-1][0]

    def _from_rows(
        self, database: db.Database, scopes: list[str], top: int, path: str, generation: int
    ) -> None:
        seen = 0
        first = True
        while True:  # in pages: a large scope's cold load never holds every row's bytes beside its matrix
            rows = database.execute(
                _ROWS + f"WHERE m.scope IN ({marks(len(scopes))}) AND m.deleted_at IS NULL "
                "AND e.model = ? AND e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?",
                (*scopes, self.model_id, seen, top, LOAD_PAGE),
            ).fetchall()
            by_scope: dict[str, list[Any]] = defaultdict(list)
            for row in rows:
                by_scope[row[2]].append(row)
            for scope in scopes:
                found = by_scope.get(scope, [])
                if first:  # sized for the first page; a large scope grows by doubling
                    self.indexes[scope] = VectorIndex(self.dim, capacity=sum(r[4] for r in found))
                for _, memory_id, _, blob, chunks in found:
                    self.add(memory_id, scope, chunk_vectors(blob, chunks))
            first = False
            if len(rows) < LOAD_PAGE:
                break
            seen = rows[-1][0]
        for scope in scopes:
            if len(self.indexes[scope]) >= MIN_VECTORS:
                self._write_snapshot(database, scope, top, path, generation)

    def _from_snapshot(self, database: db.Database, scope: str, top: int, path: str, generation: int) -> bool:
        """Load ``scope`` from its snapshot file plus the rows added since; False when there is none
        that fits (missing, damaged, another generation, or rows replaced since)."""
        file = snapshot_path(path, self.model_id, scope)
        if file is None:
            return False
        found = read_snapshot(file, model_id=self.model_id, scope=scope, dim=self.dim, generation=generation)
        if found is None or found[0] > top:
            return False
        covered, matrix, layout = found
        index = VectorIndex(self.dim, capacity=1)
        try:
            if _stored(database, self.model_id, scope, covered) != layout["stored"]:
                raise ValueError("it does not match the rows")
            index.load_snapshot(matrix, layout)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring vector snapshot %s: %s", file, exc)
            return False
        self.indexes[scope] = index
        self._scope_of.update(dict.fromkeys(layout["ids"], scope))
        newer = database.execute(
            _ROWS + "WHERE m.scope = ? AND m.deleted_at IS NULL AND e.model = ? AND e.seq > ? AND e.seq <= ? "
            "ORDER BY e.seq",
            (scope, self.model_id, covered, top),
        ).fetchall()
        for _, memory_id, _, blob, chunks in newer:
            self.add(memory_id, scope, chunk_vectors(blob, chunks))
        if len(newer) > len(layout["ids"]) // 4 + MIN_VECTORS // 10:  # stale enough to take again
            self._write_snapshot(database, scope, top, path, generation)
        return True

    def _write_snapshot(
        self, database: db.Database, scope: str, top: int, path: str, generation: int
    ) -> None:
        file = snapshot_path(path, self.model_id, scope)
        if file is None:
            return
        matrix, layout = self.indexes[scope].export()
        layout["stored"] = _stored(database, self.model_id, scope, top)
        write_snapshot(
            file,
            model_id=self.model_id,
            scope=scope,
            generation=generation,
            last_seq=top,
            matrix=matrix,
            layout=layout,
        )


def _stored(database: db.Database, model_id: str, scope: str, seq: int) -> int:
    """The scope's vector rows of ``model_id`` up to ``seq``, live or not: a row re-embedded (a new
    seq) or another database at this path changes it, so a snapshot that no longer fits is seen."""
    return int(
        database.execute(
            "SELECT count(*) FROM memories m JOIN embeddings e ON e.memory_rowid = m.rowid "
            "WHERE m.scope = ? AND e.model = ? AND e.seq <= ?",
            (scope, model_id, seq),
        ).fetchone()[0]
    )
