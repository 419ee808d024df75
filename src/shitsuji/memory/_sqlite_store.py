"""The SQLite implementation of ``MemoryStore``: rows through ``MemoryRows``, search in the process.

Rows (with their precomputed keyword terms) live in ``memories``; vectors in
``embeddings`` as float32 blobs. Searches run on two in-process caches, a
``KeywordIndex`` and, per model, a ``ScopeVectors`` (one exact index per scope), each
loaded scope by scope when first searched and topped up before each search from rows they
have not seen (by rowid and by embedding sequence number). Forget, restore, purge
and reindex bump ``index_state.generation``; a process that sees a generation it did not
make drops its caches and reloads them, so several processes can share one file.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ..errors import StoreError
from ._keywords import KeywordIndex, snapshot
from ._rows import MAX_VARS, MemoryRows, chunk_vectors, marks
from ._scope_vectors import ScopeVectors
from ._slots import Match, Slots

SNAPSHOT_MIN_ROWS = 1000  # smaller scopes load from their rows in a few ms
SNAPSHOT_FORMAT = "keywords-v1"
COMPACT_MIN_DEAD = 5000  # dead slots an index may carry before it is rebuilt

log = logging.getLogger(__name__)


def _chunk_terms(terms: str) -> list[list[str]]:
    """Stored terms are one line per chunk, space-separated."""
    return [line.split() for line in terms.split("\n")]


def _mostly_dead(slots: Slots) -> bool:
    dead = slots.size - slots.live
    return dead >= COMPACT_MIN_DEAD and dead > slots.live


class SQLiteMemoryStore(MemoryRows):
    """Memory rows in one SQLite file (WAL), shareable between processes; search on in-process caches."""

    def __init__(self, database: db.Database, *, owns_database: bool = False) -> None:
        if database.dialect != "sqlite":
            raise StoreError(f"{database.where} is not a SQLite database: open it with open_store")
        super().__init__(database, owns_database=owns_database)
        self._keywords = KeywordIndex()
        self._vectors: dict[str, ScopeVectors] = {}  # per model, loaded scope by scope
        self._generation = self._read_generation()

    def _make_lock(self) -> AbstractContextManager[Any]:
        # guards the caches below, and (until Database.write() is safe across threads) the writes
        return threading.RLock()

    # -- index upkeep after row changes (see MemoryRows) -----------------

    def _liveness_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str, *, alive: bool) -> None:
        self._bump_generation(tx)

    def _after_liveness_change(self, memory_id: str, *, alive: bool) -> None:
        if alive:
            self._revive(memory_id)
            return
        self._keywords.kill(memory_id)
        for index in self._vectors.values():
            index.kill(memory_id)
        self._compact()

    def _rows_purged(self, tx: db.Tx) -> None:
        self._bump_generation(tx)

    def _index_reset(self, tx: db.Tx) -> None:
        self._bump_generation(tx)
        self._keywords = KeywordIndex()
        self._vectors.clear()

    def _terms_rewritten(self, tx: db.Tx) -> None:
        self._bump_generation(tx)
        self._keywords = KeywordIndex()

    # -- search -----------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        if not terms or not scopes:
            return []
        with self._lock:
            self._sync_keywords(scopes)
            return self._keywords.search(terms, scopes, limit)

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[Match]:
        with self._lock:
            self._check_generation()
            index = self._vectors.get(model_id)
            if index is None or index.dim != len(vector):
                index = self._vectors[model_id] = ScopeVectors(model_id, len(vector))
            index.sync(self._db, scopes, path=self.path, generation=self._generation)
            return index.search(vector, scopes, limit)

    def vectors_of(self, model_id: str, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        with self._lock:
            index = self._vectors.get(model_id)
            return index.first_vectors(memory_ids) if index is not None else {}

    def _check_generation(self) -> None:
        """Drop the caches if another process changed which rows are live."""
        generation = self._read_generation()
        if generation != self._generation:
            self._keywords = KeywordIndex()
            self._vectors.clear()
            self._generation = generation

    def _sync_keywords(self, scopes: Sequence[str]) -> None:
        """Load the keyword rows of ``scopes`` (first search there) and new rows of loaded scopes.

        Loading per scope keeps a one-shot process (the prompt hook) from reading every
        project's rows to answer about one; a large scope comes from its snapshot (see
        ``_load_scopes``).
        """
        self._check_generation()
        index = self._keywords
        top = self._db.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0]
        if top > index.last_rowid and index.loaded_scopes:
            rows = self._db.execute(
                "SELECT id, scope, terms FROM memories WHERE rowid > ? AND rowid <= ? AND deleted_at IS NULL "
                "ORDER BY rowid",
                (index.last_rowid, top),
            ).fetchall()
            for memory_id, scope, terms in rows:
                if scope in index.loaded_scopes:
                    index.add(memory_id, scope, _chunk_terms(terms))
        missing = [s for s in dict.fromkeys(scopes) if s not in index.loaded_scopes]
        self._load_scopes(missing, top)
        index.loaded_scopes.update(missing)
        index.last_rowid = top

    def _load_scopes(self, scopes: Sequence[str], top: int) -> None:
        """Index the live rows of ``scopes`` up to rowid ``top``.

        A scope of ``SNAPSHOT_MIN_ROWS`` rows or more is kept as a snapshot in
        ``keyword_snapshots`` (tagged with the generation and the last rowid it covers): a
        cold process loads it plus the rows added since, instead of splitting and indexing
        every row again. Forget, restore, purge and reindex change the generation, so a
        snapshot never revives a forgotten row; purge and reindex delete them outright.
        """
        index = self._keywords
        rest: list[str] = []
        for scope in scopes:
            found = self._read_snapshot(scope, top)
            if found is None:
                rest.append(scope)
                continue
            covered, data, size = found
            try:
                index.load_snapshot(scope, data)
            except (ValueError, TypeError):
                log.warning("ignoring a damaged keyword snapshot of scope %r", scope)
                rest.append(scope)
                continue
            newer = self._db.execute(
                "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid > ? AND rowid <= ? "
                "AND deleted_at IS NULL ORDER BY rowid",
                (scope, covered, top),
            ).fetchall()
            index.add_many(newer)
            if len(newer) > size // 4 + SNAPSHOT_MIN_ROWS // 10:  # stale enough to take again
                self._write_snapshot(scope, top)
        for start in range(0, len(rest), MAX_VARS):
            chunk = rest[start : start + MAX_VARS]
            rows = self._db.execute(
                f"SELECT id, scope, terms FROM memories WHERE scope IN ({marks(len(chunk))}) "
                "AND rowid <= ? AND deleted_at IS NULL ORDER BY rowid",
                (*chunk, top),
            ).fetchall()
            index.add_many(rows)
            sizes = Counter(scope for _, scope, _ in rows)
            for scope, size in sizes.items():
                if size >= SNAPSHOT_MIN_ROWS:
                    # the index is the snapshot when it holds this scope alone (no second copy)
                    data = index.export(scope) or snapshot([r for r in rows if r[1] == scope])
                    self._write_snapshot(scope, top, data)

    def _read_snapshot(self, scope: str, top: int) -> tuple[int, dict[str, Any], int] | None:
        """(last rowid covered, data, rows) of the scope's snapshot, if it is current and well formed."""
        row = self._db.execute(
            "SELECT last_rowid, data FROM keyword_snapshots WHERE scope = ? AND generation = ? AND format = ?",
            (scope, self._generation, SNAPSHOT_FORMAT),
        ).fetchone()
        if row is None or row[0] > top:
            return None
        live = self._db.execute(
            "SELECT count(*) FROM memories WHERE scope = ? AND rowid <= ? AND deleted_at IS NULL",
            (scope, row[0]),
        ).fetchone()[0]
        try:
            data = json.loads(row[1])
            size = len(data["ids"])
        except (ValueError, TypeError, KeyError):
            size = -1
        if size != live:  # damaged, or not what the rows say: build from the rows instead
            log.warning("ignoring a keyword snapshot of scope %r that does not match its rows", scope)
            return None
        return int(row[0]), data, size

    def _write_snapshot(self, scope: str, top: int, data: dict[str, Any] | None = None) -> None:
        """Store the scope's snapshot (``data``, or built from its rows up to ``top``), unless another
        process holds the write lock (never wait for it)."""
        if data is None:
            rows = self._db.execute(
                "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid <= ? "
                "AND deleted_at IS NULL ORDER BY rowid",
                (scope, top),
            ).fetchall()
            data = snapshot(rows)
        blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        self._db.execute("PRAGMA busy_timeout = 0")
        try:
            with self._db.write() as conn:
                if self._read_generation() != self._generation:  # rows changed meanwhile: leave it
                    return
                conn.execute(
                    "INSERT OR REPLACE INTO keyword_snapshots (scope, generation, last_rowid, format, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (scope, self._generation, top, SNAPSHOT_FORMAT, blob),
                )
        except StoreError as exc:  # busy, read-only, full disk: the snapshot is only a shortcut
            log.info("keyword snapshot of %r not stored: %s", scope, exc)
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {int(db.BUSY_TIMEOUT_S * 1000)}")

    def _compact(self) -> None:
        """Drop an index whose dead slots (forgotten rows) outnumber its live ones: it reloads lean.

        A long-running server that forgets a lot would otherwise keep every dead slot forever.
        """
        if _mostly_dead(self._keywords.slots):
            self._keywords = KeywordIndex()
        for index in self._vectors.values():
            for scope in [s for s, one in index.indexes.items() if _mostly_dead(one.slots)]:
                index.drop(scope)

    def _revive(self, memory_id: str) -> None:
        """Put a restored row back into this process's caches."""
        row = self._db.execute(
            "SELECT rowid, scope, terms FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None:
            return
        if row[0] <= self._keywords.last_rowid and row[1] in self._keywords.loaded_scopes:
            self._keywords.add(memory_id, row[1], _chunk_terms(row[2]))
        for model_id, index in self._vectors.items():
            found = self._db.execute(
                "SELECT seq, vectors, chunks FROM embeddings WHERE memory_rowid = ? AND model = ?",
                (row[0], model_id),
            ).fetchone()
            if found is not None and found[0] <= index.last_seq and row[1] in index.indexes:
                index.add(memory_id, row[1], chunk_vectors(found[1], found[2]))

    def _read_generation(self) -> int:
        return int(self._db.execute("SELECT generation FROM index_state WHERE id = 1").fetchone()[0])

    def _bump_generation(self, conn: db.Tx) -> None:
        """Record a liveness change; this process applies it to its own caches itself."""
        seen = self._read_generation() == self._generation
        conn.execute("UPDATE index_state SET generation = generation + 1 WHERE id = 1")
        if seen:
            self._generation += 1

    # -- derived indexes ------------------------------------------------

    def put_vectors(self, model_id: str, rows: Sequence[tuple[str, npt.NDArray[np.float32]]]) -> None:
        """Store each memory's chunk vectors, shape (chunks, dim), replacing older ones."""
        if not rows:
            return
        with self._lock, self._db.write() as conn:
            seq = conn.execute("SELECT coalesce(max(seq), 0) FROM embeddings").fetchone()[0]
            for memory_id, vector in rows:
                found = conn.execute(
                    "UPDATE memories SET embedding_model = ? WHERE id = ? RETURNING rowid",
                    (model_id, memory_id),
                ).fetchone()
                if found is None:  # purged meanwhile
                    continue
                seq += 1
                matrix = np.ascontiguousarray(np.atleast_2d(vector), dtype=np.float32)
                conn.execute(
                    "INSERT OR REPLACE INTO embeddings (memory_rowid, model, dim, chunks, vectors, seq) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (found[0], model_id, matrix.shape[1], matrix.shape[0], matrix.tobytes(), seq),
                )
