"""The SQLite implementation of ``MemoryStore``.

Rows (with their precomputed keyword terms) live in ``memories``; vectors in
``embeddings`` as float32 blobs. Searches run on two in-process caches, a
``KeywordIndex`` and a ``VectorIndex`` per model, topped up before each search from rows
they have not seen (by rowid and by embedding sequence number). Forget, restore, purge
and reindex bump ``index_state.generation``; a process that sees a generation it did not
make drops its caches and reloads them, so several processes can share one file.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ..errors import StoreError
from ._keywords import KeywordIndex, snapshot
from ._records import Memory, check_source
from ._schema import MEMORY_SCHEMA
from ._slots import Match, Slots
from ._store import MemoryStore, StoreStats
from ._vector_snapshots import MIN_VECTORS, read_snapshot, snapshot_path, write_snapshot
from ._vectors import VectorIndex

_COLUMNS = (
    "id, scope, content, category, importance, source, provenance, created_at, updated_at, "
    "valid_until, deleted_at, content_hash, embedding_model, context"
)
_MAX_VARS = 900
SNAPSHOT_MIN_ROWS = 1000  # smaller scopes load from their rows in a few ms
SNAPSHOT_FORMAT = "keywords-v1"
COMPACT_MIN_DEAD = 5000  # dead slots an index may carry before it is rebuilt

log = logging.getLogger(__name__)


def _row_to_memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        scope=row[1],
        content=row[2],
        category=row[3],
        importance=row[4],
        source=check_source(row[5]),
        provenance=json.loads(row[6]),
        created_at=datetime.fromisoformat(row[7]),
        updated_at=datetime.fromisoformat(row[8]),
        valid_until=datetime.fromisoformat(row[9]) if row[9] else None,
        deleted_at=datetime.fromisoformat(row[10]) if row[10] else None,
        content_hash=row[11],
        embedding_model=row[12],
        context=row[13],
    )


def _params(memory: Memory) -> tuple[Any, ...]:
    return (
        memory.id,
        memory.scope,
        memory.content,
        memory.category,
        memory.importance,
        memory.source,
        json.dumps(memory.provenance, ensure_ascii=False, sort_keys=True),
        memory.created_at.isoformat(),
        memory.updated_at.isoformat(),
        memory.valid_until.isoformat() if memory.valid_until else None,
        memory.deleted_at.isoformat() if memory.deleted_at else None,
        memory.content_hash,
        memory.embedding_model,
        memory.context,
    )


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


def _chunk_terms(terms: str) -> list[list[str]]:
    """Stored terms are one line per chunk, space-separated."""
    return [line.split() for line in terms.split("\n")]


def _matrix(blob: bytes, chunks: int) -> npt.NDArray[np.float32]:
    return np.frombuffer(blob, dtype=np.float32).reshape(chunks, -1)


def _mostly_dead(slots: Slots) -> bool:
    dead = slots.size - slots.live
    return dead >= COMPACT_MIN_DEAD and dead > slots.live


class SQLiteMemoryStore:
    """Memory rows in one SQLite file (WAL), shareable between processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._conn = db.open_database(self.path, MEMORY_SCHEMA)
        self._lock = threading.RLock()
        self._keywords = KeywordIndex()
        self._vectors: dict[str, VectorIndex] = {}
        self._generation = self._read_generation()

    # -- rows -------------------------------------------------------------

    def insert(self, memory: Memory, terms: str) -> None:
        self.insert_many([(memory, terms)])

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None:
        with self._lock, self._conn.write() as conn:
            conn.executemany(
                f"INSERT INTO memories ({_COLUMNS}, terms) VALUES ({_placeholders(15)})",
                [(*_params(memory), terms) for memory, terms in rows],
            )

    def get(self, memory_id: str) -> Memory | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        out: dict[str, Memory] = {}
        ids = list(dict.fromkeys(memory_ids))
        with self._lock:
            for start in range(0, len(ids), _MAX_VARS):
                chunk = ids[start : start + _MAX_VARS]
                rows = self._conn.execute(
                    f"SELECT {_COLUMNS} FROM memories WHERE id IN ({_placeholders(len(chunk))})", chunk
                ).fetchall()
                out.update((row[0], _row_to_memory(row)) for row in rows)
        return out

    def resolve_id(
        self, id_or_prefix: str, *, scopes: Sequence[str] | None = None, include_deleted: bool = True
    ) -> str | None:
        sql = "SELECT id FROM memories WHERE id >= ? AND id < ?"
        params: list[str] = [id_or_prefix, id_or_prefix + "\uffff"]
        if scopes is not None:
            if not scopes or len(scopes) > _MAX_VARS - 2:
                return None
            sql += f" AND scope IN ({_placeholders(len(scopes))})"
            params += scopes
        if not include_deleted:
            sql += " AND deleted_at IS NULL"
        with self._lock:
            rows = self._conn.execute(sql + " LIMIT 2", params).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def find_by_hash(self, scope: str, content_hash: str) -> Memory | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE content_hash = ? AND scope = ? AND deleted_at IS NULL "
                "ORDER BY created_at LIMIT 1",
                (content_hash, scope),
            ).fetchone()
        return _row_to_memory(row) if row else None

    def list_memories(
        self,
        scope: str | None,
        *,
        include_deleted: bool,
        only_deleted: bool = False,
        limit: int | None = None,
    ) -> Iterator[Memory]:
        where, params = [], []
        if scope is not None:
            where.append("(scope = ? OR (scope >= ? AND scope < ?))")
            params += [scope, scope + "/", scope + "0"]  # '0' sorts right after '/'
        if only_deleted:
            where.append("deleted_at IS NOT NULL")
        elif not include_deleted:
            where.append("deleted_at IS NULL")
        sql = f"SELECT {_COLUMNS} FROM memories"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY rowid"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return (_row_to_memory(row) for row in rows)

    def touch(self, memory_id: str, at: datetime, importance: float | None = None) -> None:
        with self._lock, self._conn.write() as conn:
            conn.execute(
                "UPDATE memories SET updated_at = ?, importance = max(importance, coalesce(?, importance)) "
                "WHERE id = ?",
                (at.isoformat(), importance, memory_id),
            )

    def set_deleted(self, memory_id: str, deleted_at: datetime | None) -> None:
        stamp = deleted_at.isoformat() if deleted_at else None
        with self._lock:
            with self._conn.write() as conn:
                conn.execute(
                    "UPDATE memories SET deleted_at = ?, updated_at = coalesce(?, updated_at) WHERE id = ?",
                    (stamp, stamp, memory_id),
                )
                self._bump_generation(conn)
            if deleted_at is not None:
                self._keywords.kill(memory_id)
                for index in self._vectors.values():
                    index.slots.kill(memory_id)
                self._compact()
            else:
                self._revive(memory_id)

    def set_valid_until(
        self, memory_id: str, valid_until: datetime | None, provenance_patch: dict[str, Any]
    ) -> None:
        stamp = valid_until.isoformat() if valid_until else None
        with self._lock, self._conn.write() as conn:
            row = conn.execute("SELECT provenance FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                return
            provenance = {**json.loads(row[0]), **provenance_patch}
            conn.execute(
                "UPDATE memories SET valid_until = ?, provenance = ?, updated_at = coalesce(?, updated_at) WHERE id = ?",
                (stamp, json.dumps(provenance, ensure_ascii=False, sort_keys=True), stamp, memory_id),
            )

    def purge_deleted(self) -> int:
        with self._lock, self._conn.write() as conn:
            count = conn.execute("DELETE FROM memories WHERE deleted_at IS NOT NULL").rowcount
            conn.execute("DELETE FROM keyword_snapshots")  # they hold the purged rows' terms
            self._bump_generation(conn)
            return count

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
                index = self._vectors[model_id] = VectorIndex(len(vector))
            self._load_vectors(model_id, index)
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
        top = self._conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0]
        if top > index.last_rowid and index.loaded_scopes:
            rows = self._conn.execute(
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
            newer = self._conn.execute(
                "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid > ? AND rowid <= ? "
                "AND deleted_at IS NULL ORDER BY rowid",
                (scope, covered, top),
            ).fetchall()
            index.add_many(newer)
            if len(newer) > size // 4 + SNAPSHOT_MIN_ROWS // 10:  # stale enough to take again
                self._write_snapshot(scope, top)
        for start in range(0, len(rest), _MAX_VARS):
            chunk = rest[start : start + _MAX_VARS]
            rows = self._conn.execute(
                f"SELECT id, scope, terms FROM memories WHERE scope IN ({_placeholders(len(chunk))}) "
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
        row = self._conn.execute(
            "SELECT last_rowid, data FROM keyword_snapshots WHERE scope = ? AND generation = ? AND format = ?",
            (scope, self._generation, SNAPSHOT_FORMAT),
        ).fetchone()
        if row is None or row[0] > top:
            return None
        live = self._conn.execute(
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
            rows = self._conn.execute(
                "SELECT id, scope, terms FROM memories WHERE scope = ? AND rowid <= ? "
                "AND deleted_at IS NULL ORDER BY rowid",
                (scope, top),
            ).fetchall()
            data = snapshot(rows)
        blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        self._conn.execute("PRAGMA busy_timeout = 0")
        try:
            with self._conn.write() as conn:
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
            self._conn.execute(f"PRAGMA busy_timeout = {int(db.BUSY_TIMEOUT_S * 1000)}")

    def _load_vectors(self, model_id: str, index: VectorIndex) -> None:
        """Top the index up with vectors it has not seen; a cold index starts from the snapshot file.

        A cold load of ``MIN_VECTORS`` or more (or one that found its snapshot a quarter
        stale) writes a new snapshot for the next process (see ``_vector_snapshots``).
        """
        path = snapshot_path(self.path, model_id)
        cold = len(index) == 0 and index.last_seq == 0
        from_snapshot = 0
        if cold and path is not None:
            from_snapshot = self._load_vector_snapshot(path, model_id, index)
        rows = self._conn.execute(
            "SELECT e.seq, m.id, m.scope, e.vectors, e.chunks FROM embeddings e "
            "JOIN memories m ON m.rowid = e.memory_rowid "
            "WHERE e.model = ? AND e.seq > ? AND m.deleted_at IS NULL ORDER BY e.seq",
            (model_id, index.last_seq),
        ).fetchall()
        for _, memory_id, scope, blob, chunks in rows:
            index.add(memory_id, scope, _matrix(blob, chunks))
        if rows:
            index.last_seq = rows[-1][0]
        stale = len(rows) > from_snapshot // 4 + MIN_VECTORS // 10
        if cold and path is not None and len(index) >= MIN_VECTORS and stale:
            matrix, layout = index.export()
            layout["stored"] = self._conn.execute(
                "SELECT count(*) FROM embeddings WHERE seq <= ?", (index.last_seq,)
            ).fetchone()[0]
            write_snapshot(
                path,
                model_id=model_id,
                generation=self._generation,
                last_seq=index.last_seq,
                matrix=matrix,
                layout=layout,
            )

    def _load_vector_snapshot(self, path: Path, model_id: str, index: VectorIndex) -> int:
        """Load the model's snapshot into an empty index if it is current; how many memories it held."""
        found = read_snapshot(path, model_id=model_id, dim=index.dim, generation=self._generation)
        if found is None:
            return 0
        last_seq, matrix, layout = found
        # a vector replaced since (re-embedded) or another database at this path changes this count
        # (all models' rows: the seq index answers it without reading a vector)
        stored = self._conn.execute("SELECT count(*) FROM embeddings WHERE seq <= ?", (last_seq,)).fetchone()[
            0
        ]
        try:
            if stored != layout["stored"]:
                raise ValueError("it does not match the rows")
            index.load_snapshot(matrix, layout)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring vector snapshot %s: %s", path, exc)  # checked before anything loads
            return 0
        index.last_seq = last_seq
        return len(layout["ids"])

    def _compact(self) -> None:
        """Drop an index whose dead slots (forgotten rows) outnumber its live ones: it reloads lean.

        A long-running server that forgets a lot would otherwise keep every dead slot forever.
        """
        if _mostly_dead(self._keywords.slots):
            self._keywords = KeywordIndex()
        for model_id, index in list(self._vectors.items()):
            if _mostly_dead(index.slots):
                del self._vectors[model_id]

    def _revive(self, memory_id: str) -> None:
        """Put a restored row back into this process's caches."""
        row = self._conn.execute(
            "SELECT rowid, scope, terms FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None:
            return
        if row[0] <= self._keywords.last_rowid and row[1] in self._keywords.loaded_scopes:
            self._keywords.add(memory_id, row[1], _chunk_terms(row[2]))
        for model_id, index in self._vectors.items():
            found = self._conn.execute(
                "SELECT seq, vectors, chunks FROM embeddings WHERE memory_rowid = ? AND model = ?",
                (row[0], model_id),
            ).fetchone()
            if found is not None and found[0] <= index.last_seq:
                index.add(memory_id, row[1], _matrix(found[1], found[2]))

    def _read_generation(self) -> int:
        return int(self._conn.execute("SELECT generation FROM index_state WHERE id = 1").fetchone()[0])

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
        with self._lock, self._conn.write() as conn:
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

    def unindexed(self, model_id: str, limit: int, after: int = 0) -> list[tuple[int, str, str, str | None]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT rowid, id, content, context FROM memories WHERE rowid > ? AND deleted_at IS NULL "
                "AND (embedding_model IS NULL OR embedding_model != ?) ORDER BY rowid LIMIT ?",
                (after, model_id, limit),
            ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def count_unindexed(self, model_id: str) -> int:
        with self._lock:
            row = self._conn.execute(
                "SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model != ?) "
                "AND deleted_at IS NULL",
                (model_id,),
            ).fetchone()
        return int(row[0])

    def reset_index(self) -> None:
        with self._lock, self._conn.write() as conn:
            conn.execute("DELETE FROM embeddings")
            conn.execute("DELETE FROM keyword_snapshots")
            conn.execute("UPDATE memories SET embedding_model = NULL, terms = ''")
            self._bump_generation(conn)
            self._keywords = KeywordIndex()
            self._vectors.clear()

    def rewrite_terms(self, rows: Sequence[tuple[str, str]]) -> None:
        with self._lock, self._conn.write() as conn:
            conn.executemany(
                "UPDATE memories SET terms = ? WHERE id = ?", [(terms, mid) for mid, terms in rows]
            )
            conn.execute("DELETE FROM keyword_snapshots")
            self._bump_generation(conn)
            self._keywords = KeywordIndex()

    def stats(self) -> StoreStats:
        with self._lock:
            q = self._conn.execute
            live = "WHERE deleted_at IS NULL"
            return StoreStats(
                memories=q(f"SELECT count(*) FROM memories {live}").fetchone()[0],
                deleted=q("SELECT count(*) FROM memories WHERE deleted_at IS NOT NULL").fetchone()[0],
                indexed=q(f"SELECT count(*) FROM memories {live} AND embedding_model IS NOT NULL").fetchone()[
                    0
                ],
                by_scope=dict(q(f"SELECT scope, count(*) FROM memories {live} GROUP BY scope").fetchall()),
                by_category=dict(
                    q(f"SELECT category, count(*) FROM memories {live} GROUP BY category").fetchall()
                ),
                embedding_models=dict(
                    q(
                        f"SELECT embedding_model, count(*) FROM memories {live} "
                        "AND embedding_model IS NOT NULL GROUP BY embedding_model"
                    ).fetchall()
                ),
                path=self.path,
                schema_version=q("PRAGMA user_version").fetchone()[0],
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def open_store(target: str | Path) -> MemoryStore:
    """The memory store for ``target``: a SQLite file, or a ``postgresql://`` database."""
    if db.is_postgres(target):
        from ._postgres_store import PostgresMemoryStore  # psycopg loads only for PostgreSQL

        return PostgresMemoryStore(str(target))
    return SQLiteMemoryStore(target)
