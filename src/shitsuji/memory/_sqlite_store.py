"""The SQLite implementation of ``MemoryStore``: rows through ``MemoryRows``, search in the process.

Rows (with their precomputed keyword terms) live in ``memories``; vectors in
``embeddings`` as float32 blobs. Searches run on two in-process caches, a
``KeywordIndex`` and, per model, a ``ScopeVectors`` (one exact index per scope), each
loaded scope by scope when first searched and topped up before each search from rows they
have not seen (by rowid and by embedding sequence number). Forget, restore, purge
and reindex change ``index_state.generation``; a process that sees a generation it did not
make drops its caches and reloads them, so several processes can share one file. A purge
drops them in the purging process too (it frees rowids that new rows take again).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .. import store as db
from ..errors import StoreError
from ._keywords import KeywordIndex, snapshot, well_formed
from ._rows import MAX_VARS, MemoryRows, chunk_vectors, marks
from ._scope_vectors import ScopeVectors
from ._slots import Asked, Match, Ranked, Slots, Terms

SNAPSHOT_MIN_ROWS = 1000  # smaller scopes load from their rows in a few ms
SNAPSHOT_FORMAT = "keywords-v1"
COMPACT_MIN_DEAD = 5000  # dead slots an index may carry before it is rebuilt
SYNC_TRIES = 8  # reads of new rows retried when another thread changed the caches meanwhile
#: the stored generation and both high-water marks in one statement: what a search syncs against
MARKS = (
    "SELECT generation, (SELECT coalesce(max(rowid), 0) FROM memories), "
    "(SELECT coalesce(max(seq), 0) FROM embeddings) FROM index_state WHERE id = 1"
)

log = logging.getLogger(__name__)


def _chunk_terms(terms: str) -> list[list[str]]:
    """Stored terms are one line per chunk, space-separated."""
    return [line.split() for line in terms.split("\n")]


def _mostly_dead(slots: Slots) -> bool:
    dead = slots.size - slots.live
    return dead >= COMPACT_MIN_DEAD and dead > slots.live


def _fresh_generation() -> int:
    """A generation no other change reaches: counting writers start at 0 and step by one, and 61
    random bits make two processes' (or a rolled-back and a later one's) alike once in 2**61."""
    return (1 << 61) | secrets.randbits(61)


class Marks(NamedTuple):
    """The stored generation, the last memory rowid and the last embedding seq, read together (``MARKS``)."""

    generation: int
    rowid: int
    seq: int


def _blob(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


class SQLiteMemoryStore(MemoryRows):
    """Memory rows in one SQLite file (WAL), shareable between processes; search on in-process caches."""

    def __init__(self, database: db.Database) -> None:
        if not isinstance(database, db.SQLiteDatabase):
            raise StoreError(f"{database.where} is not a SQLite database: open it with open_store")
        super().__init__(database)
        self._sqlite = database
        # ``_lock`` guards the in-process caches below (the keyword index, the vector indexes and the
        # generation of the rows they mirror), which any thread of the process reads and changes (web
        # workers, the background indexer, the hook server). It guards nothing else: transactions are
        # the Database's, one thread from BEGIN to COMMIT. It is a leaf lock — no database call is
        # made while it is held (rows are read first, then applied if nothing moved meanwhile:
        # ``_sync_keywords``) — so it never waits on a transaction, and a thread inside a write
        # (holding the database) may search, forget or restore without a deadlock. The one exception,
        # ``_synced_vectors``, takes the file's lock first, in the order every writer takes the two.
        self._lock = threading.Lock()
        self._keywords = KeywordIndex()
        self._vectors: dict[str, ScopeVectors] = {}  # per model, loaded scope by scope
        self._generation = self._read_generation()

    # -- index upkeep in the row change's transaction (see MemoryRows) ----
    # A forget or restore moves the stored generation to a fresh random one and this process's
    # caches follow at once; if the transaction rolls back, no writer brings the file to that value
    # again, and the next search drops them (``_bump_generation``).

    def _liveness_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str, *, alive: bool) -> None:
        if not self._bump_generation(tx):
            return  # another process moved it too: the next search reloads anyway
        if alive:
            self._revive(tx, memory_id, rowid, scope)
            return
        with self._lock:
            self._keywords.kill(memory_id)
            for index in self._vectors.values():
                index.kill(memory_id)
            self._compact()

    def _terms_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str) -> None:
        # out of this process's caches and back in with the terms just written, as a forget and a restore
        self._liveness_changed(tx, memory_id, rowid, scope, alive=False)
        self._liveness_changed(tx, memory_id, rowid, scope, alive=True)

    def _rows_purged(self, tx: db.Tx) -> None:
        # A purge frees rowids and embedding sequence numbers, and SQLite hands the largest back to
        # the next insert: the caches' high-water marks (``last_rowid``, ``last_seq``) no longer
        # tell which rows they hold, and topping up past them would skip every row that takes a
        # freed number back (an export imported again, a new fact). So this process does not
        # follow the change in place: the stored generation moves past its own, and the first
        # search after the commit drops the caches and reloads, as another process's would. (Dropping
        # them here would not do: a search in another thread before the commit reloads the old rows.)
        tx.execute("UPDATE index_state SET generation = generation + 1 WHERE id = 1")

    def _index_reset(self, tx: db.Tx) -> None:
        self._caches_outdated(tx)

    def _terms_rewritten(self, tx: db.Tx) -> None:
        self._caches_outdated(tx)

    def _caches_outdated(self, tx: db.Tx) -> None:
        """Reindex steps leave this process's caches and their generation alone in the transaction:
        only the stored generation moves, and the first search after the commit drops the caches
        and reloads (``_check_generation``); a rollback takes the move back and nothing happens.
        They used to drop the caches and step the process's generation here: rolled back, that
        left the process a generation ahead of the file, and the next forget or restore — taken
        for another process's — was never followed (tests/test_sqlite_cache_drops.py)."""
        tx.execute("UPDATE index_state SET generation = generation + 1 WHERE id = 1")

    # -- search -----------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        return self._keyword_search(terms, scopes, limit, None)

    def _keyword_search(
        self, terms: Sequence[str], scopes: Sequence[str], limit: int, marks: Marks | None
    ) -> list[Match]:
        if not terms or not scopes:
            return []
        self._sync_keywords(scopes, marks)
        with self._lock:
            return self._keywords.search(terms, scopes, limit)

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[Match]:
        index, _ = self._synced_vectors(model_id, len(vector), scopes)
        with self._lock:
            scan = index.scan(scopes)
        return scan(vector, limit)  # outside the lock: what it reads no change writes (``VectorIndex.scan``)

    def candidates(
        self, terms: Terms, model_id: str, vector: Asked, scopes: Sequence[str], limit: int
    ) -> Ranked:
        """Both searches, one after the other on the calling thread.

        The vector scan ran on a worker thread beside the keyword search (issue 23 fl23) until it was
        measured against this: on two cores the scan's matrix product already takes both (BLAS's own
        threads), so a third runnable thread only made them wait their turn — recall's CPU +2-3 ms and
        its p95 +6-13 % at 100k memories, in every pair (docs/benchmarks.md, issue 23 fl23c).
        """
        ranked: Ranked = {}
        scan = None
        marks = None
        if vector is not None:  # the vectors synced first, as before: a cold scope loads them, then its terms
            index, marks = self._synced_vectors(model_id, len(vector), scopes)
            with self._lock:
                scan = index.scan(scopes)
        if terms is not None:  # the keyword sync reuses the marks the vectors were synced against
            ranked["keyword"] = self._keyword_search(terms, scopes, limit, marks)
        if scan is not None and vector is not None:
            ranked["vector"] = scan(vector, limit)
        return ranked

    def vectors_of(self, model_id: str, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        with self._lock:
            index = self._vectors.get(model_id)
            return index.first_vectors(memory_ids) if index is not None else {}

    def _check_generation(self, stored: int | None = None) -> int:
        """Drop the caches if another process changed which rows are live (``stored``: the generation
        just read, else read now); the generation they mirror."""
        generation = self._read_generation() if stored is None else stored
        with self._lock:
            if generation != self._generation:
                self._keywords = KeywordIndex()
                self._vectors.clear()
                self._generation = generation
            return self._generation

    def _sync_keywords(self, scopes: Sequence[str], marks: Marks | None = None) -> None:
        """Load the keyword rows of ``scopes`` (first search there) and new rows of loaded scopes.

        Loading per scope keeps a one-shot process (the prompt hook) from reading every
        project's rows to answer about one; a large scope comes from its snapshot (see
        ``_read_scopes``). Rows are read without the lock and applied under it only if the index
        is still the one they were read for (same object, generation, rows and scopes loaded);
        else they are read again. ``marks``, read by the vector sync of the same search, stand for
        the generation and the last rowid when the caches still mirror that generation and the
        index has not gone past that rowid meanwhile (two statements fewer a recall).
        """
        for _ in range(SYNC_TRIES):
            with self._lock:
                if marks is not None and self._generation != marks.generation:
                    marks = None  # another thread followed a change since: read afresh
            generation = self._check_generation(None if marks is None else marks.generation)
            with self._lock:
                index = self._keywords
                last, loaded = index.last_rowid, set(index.loaded_scopes)
            missing = [s for s in dict.fromkeys(scopes) if s not in loaded]
            if marks is not None and marks.rowid >= last:
                top = marks.rowid
            else:
                top = self._db.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0]
            marks = None  # a retry reads both afresh
            if top <= last and not missing:
                return
            newer: list[tuple[str, str, str]] = []
            if top > last and loaded:
                rows = self._db.execute(
                    "SELECT id, scope, terms FROM memories WHERE rowid > ? AND rowid <= ? AND deleted_at IS NULL "
                    "ORDER BY rowid",
                    (last, top),
                ).fetchall()
                newer = [r for r in rows if r[1] in loaded]
            snapshots, rows = self._read_scopes(missing, top, generation)
            with self._lock:
                if not (
                    self._keywords is index
                    and self._generation == generation
                    and index.last_rowid == last
                    and len(index.loaded_scopes) == len(loaded)
                ):
                    continue
                for memory_id, scope, terms in newer:
                    index.add(memory_id, scope, _chunk_terms(terms))
                for scope, data, since in snapshots:
                    index.load_snapshot(scope, data)  # checked by _read_snapshot: it loads
                    index.add_many(since)
                index.add_many(rows)
                index.loaded_scopes.update(missing)
                index.last_rowid = top
                fresh = self._fresh_snapshots(index, snapshots, rows)
            for scope, blob in fresh:
                self._store_snapshot(scope, top, generation, blob)
            return
        log.debug("keyword index of %s kept moving: searched as it is", self.path)

    def _read_scopes(
        self, scopes: Sequence[str], top: int, generation: int
    ) -> tuple[list[tuple[str, dict[str, Any], list[Any]]], list[Any]]:
        """The live rows of ``scopes`` up to rowid ``top``: (snapshots with the rows added since, rows).

        A scope of ``SNAPSHOT_MIN_ROWS`` rows or more is kept as a snapshot in
        ``keyword_snapshots`` (tagged with the generation and the last rowid it covers): a
        cold process loads it plus the rows added since, instead of splitting and indexing
        every row again. Forget, restore, purge and reindex change the generation, so a
        snapshot never revives a forgotten row; purge and reindex delete them outright.
        """
        snapshots: list[tuple[str, dict[str, Any], list[Any]]] = []
        rest: list[str] = []
        for scope in scopes:
            found = self._read_snapshot(scope, top, generation)
            if found is None:
                rest.append(scope)
                continue
            covered, data = found
            snapshots.append(
                (
                    scope,
                    data,
                    self._db.execute(
                        "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid > ? AND rowid <= ? "
                        "AND deleted_at IS NULL ORDER BY rowid",
                        (scope, covered, top),
                    ).fetchall(),
                )
            )
        rows: list[Any] = []
        for start in range(0, len(rest), MAX_VARS):
            chunk = rest[start : start + MAX_VARS]
            rows += self._db.execute(
                f"SELECT id, scope, terms FROM memories WHERE scope IN ({marks(len(chunk))}) "
                "AND rowid <= ? AND deleted_at IS NULL ORDER BY rowid",
                (*chunk, top),
            ).fetchall()
        return snapshots, rows

    @staticmethod
    def _fresh_snapshots(
        index: KeywordIndex, snapshots: list[tuple[str, dict[str, Any], list[Any]]], rows: list[Any]
    ) -> list[tuple[str, bytes | None]]:
        """Snapshots to store after a load (under the lock: the index is read): large scopes read from
        their rows, and snapshots a quarter stale (None: to build from the rows, without the lock)."""
        out: list[tuple[str, bytes | None]] = []
        for scope, size in Counter(scope for _, scope, _ in rows).items():
            if size >= SNAPSHOT_MIN_ROWS:
                # the index is the snapshot when it holds this scope alone (no second copy)
                data = index.export(scope) or snapshot([r for r in rows if r[1] == scope])
                out.append((scope, _blob(data)))
        for scope, data, since in snapshots:
            if len(since) > len(data["ids"]) // 4 + SNAPSHOT_MIN_ROWS // 10:  # stale enough to take again
                whole = index.export(scope)
                out.append((scope, _blob(whole) if whole is not None else None))
        return out

    def _read_snapshot(self, scope: str, top: int, generation: int) -> tuple[int, dict[str, Any]] | None:
        """(last rowid covered, data) of the scope's snapshot, if it is current and well formed."""
        row = self._db.execute(
            "SELECT last_rowid, data FROM keyword_snapshots WHERE scope = ? AND generation = ? AND format = ?",
            (scope, generation, SNAPSHOT_FORMAT),
        ).fetchone()
        if row is None or row[0] > top:
            return None
        live = self._db.execute(
            "SELECT count(*) FROM memories WHERE scope = ? AND rowid <= ? AND deleted_at IS NULL",
            (scope, row[0]),
        ).fetchone()[0]
        try:
            data = json.loads(row[1])
        except (ValueError, TypeError):
            data = None
        if not well_formed(data):
            log.warning("ignoring a damaged keyword snapshot of scope %r", scope)
            return None
        if len(data["ids"]) != live:  # not what the rows say: build from the rows instead
            log.warning("ignoring a keyword snapshot of scope %r that does not match its rows", scope)
            return None
        return int(row[0]), data

    def _store_snapshot(self, scope: str, top: int, generation: int, blob: bytes | None) -> None:
        """Store the scope's snapshot (``blob``, or built from its rows up to ``top``), unless another
        process holds the write lock (never wait for it)."""
        if blob is None:
            rows = self._db.execute(
                "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid <= ? "
                "AND deleted_at IS NULL ORDER BY rowid",
                (scope, top),
            ).fetchall()
            blob = _blob(snapshot(rows))
        try:
            with self._sqlite.write(wait=False) as conn:
                if self._read_generation() != generation:  # rows changed meanwhile: leave it
                    return
                conn.execute(
                    "INSERT OR REPLACE INTO keyword_snapshots (scope, generation, last_rowid, format, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (scope, generation, top, SNAPSHOT_FORMAT, blob),
                )
        except StoreError as exc:  # busy, read-only, full disk: the snapshot is only a shortcut
            log.info("keyword snapshot of %r not stored: %s", scope, exc)

    def _synced_vectors(self, model_id: str, dim: int, scopes: Sequence[str]) -> tuple[ScopeVectors, Marks]:
        """The model's per-scope indexes, topped up with vectors they have not seen and with ``scopes``
        loaded, and the marks they were synced against (``MARKS``, one statement). Unlike the keyword
        index this reads rows while holding the cache lock, so it takes the file's lock of the process
        first — the order a writer takes them (the database, then the caches) — and a thread inside a
        write, which already holds the file, may still search."""
        with self._sqlite.held():
            marks = Marks(*self._db.execute(MARKS).fetchone())
            self._check_generation(marks.generation)
            with self._lock:
                index = self._vectors.get(model_id)
                if index is None or index.dim != dim:
                    index = self._vectors[model_id] = ScopeVectors(model_id, dim)
                index.sync(self._db, scopes, path=self.path, generation=self._generation, top=marks.seq)
                return index, marks

    def _compact(self) -> None:
        """Drop an index whose dead slots (forgotten rows) outnumber its live ones: it reloads lean
        (under the lock). A long-running server that forgets a lot would otherwise keep every dead
        slot forever."""
        if _mostly_dead(self._keywords.slots):
            self._keywords = KeywordIndex()
        for index in self._vectors.values():
            for scope in [s for s, one in index.indexes.items() if _mostly_dead(one.slots)]:
                index.drop(scope)

    def _revive(self, tx: db.Tx, memory_id: str, rowid: int, scope: str) -> None:
        """Put a restored row back into this process's caches (its rows read in ``tx``)."""
        terms = tx.execute("SELECT terms FROM memories WHERE rowid = ?", (rowid,)).fetchone()[0]
        found = tx.execute(
            "SELECT model, seq, vectors, chunks FROM embeddings WHERE memory_rowid = ?", (rowid,)
        ).fetchone()
        with self._lock:
            if rowid <= self._keywords.last_rowid and scope in self._keywords.loaded_scopes:
                self._keywords.add(memory_id, scope, _chunk_terms(terms))
            index = self._vectors.get(found[0]) if found is not None else None
            if index is not None and found[1] <= index.last_seq and scope in index.indexes:
                index.add(memory_id, scope, chunk_vectors(found[2], found[3]))

    def _read_generation(self) -> int:
        return int(self._db.execute("SELECT generation FROM index_state WHERE id = 1").fetchone()[0])

    def _bump_generation(self, tx: db.Tx) -> bool:
        """Record a liveness change in ``tx``; whether this process's caches follow it themselves (they
        mirrored the generation before it).

        The caches follow inside the transaction, before it is known to commit, so the generation
        they then claim must be one the file can only hold if it did: a fresh random value, not the
        stored one plus one. It used to be plus one: rolled back, the next bump by anyone (another
        forget, a reindex step, a purge, another process) brought the file level with the process,
        and the caches kept the rolled-back change for good (tests/test_sqlite_cache_drops.py)."""
        stored = int(tx.execute("SELECT generation FROM index_state WHERE id = 1").fetchone()[0])
        fresh = _fresh_generation()
        tx.execute("UPDATE index_state SET generation = ? WHERE id = 1", (fresh,))
        with self._lock:
            if stored != self._generation:
                return False
            self._generation = fresh
            return True

    # -- derived indexes ------------------------------------------------

    def put_vectors(self, model_id: str, rows: Sequence[tuple[str, npt.NDArray[np.float32]]]) -> None:
        """Store each memory's chunk vectors, shape (chunks, dim), replacing older ones."""
        if not rows:
            return
        with self.write() as conn:
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
