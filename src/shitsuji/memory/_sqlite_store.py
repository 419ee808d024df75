"""The SQLite implementation of ``MemoryStore``.

Rows live in ``memories``; keyword terms in an FTS5 table keyed by the row's rowid;
vectors in ``embeddings`` as float32 blobs, searched through an in-process
``VectorIndex`` per model that is topped up from the table before each search.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ._records import Memory, check_source
from ._store import StoreStats
from ._vectors import VectorIndex

_COLUMNS = (
    "id, scope, content, category, importance, source, provenance, created_at, updated_at, "
    "valid_until, deleted_at, content_hash, embedding_model"
)
_MAX_VARS = 900


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
    )


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


class SQLiteMemoryStore:
    """Memory rows in one SQLite file (WAL), shareable between processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._conn = db.connect(self.path)
        self._lock = threading.RLock()
        self._indexes: dict[str, VectorIndex] = {}

    # -- rows -------------------------------------------------------------

    def insert(self, memory: Memory, terms: str) -> None:
        self.insert_many([(memory, terms)])

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None:
        with self._lock, db.write(self._conn, self.path) as conn:
            for memory, terms in rows:
                cur = conn.execute(
                    f"INSERT INTO memories ({_COLUMNS}) VALUES ({_placeholders(13)})", _params(memory)
                )
                conn.execute("INSERT INTO memory_terms (rowid, terms) VALUES (?, ?)", (cur.lastrowid, terms))

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

    def resolve_id(self, id_or_prefix: str) -> str | None:
        with self._lock:
            rows = self._conn.execute(
                "SELECT id FROM memories WHERE id >= ? AND id < ? LIMIT 2",
                (id_or_prefix, id_or_prefix + "\uffff"),
            ).fetchall()
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
        with self._lock, db.write(self._conn, self.path) as conn:
            conn.execute(
                "UPDATE memories SET updated_at = ?, importance = max(importance, coalesce(?, importance)) "
                "WHERE id = ?",
                (at.isoformat(), importance, memory_id),
            )

    def set_deleted(self, memory_id: str, deleted_at: datetime | None) -> None:
        with self._lock, db.write(self._conn, self.path) as conn:
            conn.execute(
                "UPDATE memories SET deleted_at = ?, updated_at = coalesce(?, updated_at) WHERE id = ?",
                (
                    deleted_at.isoformat() if deleted_at else None,
                    deleted_at.isoformat() if deleted_at else None,
                    memory_id,
                ),
            )
            if deleted_at is not None:
                for index in self._indexes.values():
                    index.remove(memory_id)
            else:
                # a restored row re-enters each index on the next search
                conn.execute(
                    "UPDATE embeddings SET seq = (SELECT coalesce(max(seq), 0) + 1 FROM embeddings) "
                    "WHERE memory_rowid = (SELECT rowid FROM memories WHERE id = ?)",
                    (memory_id,),
                )

    def purge_deleted(self) -> int:
        with self._lock, db.write(self._conn, self.path) as conn:
            conn.execute(
                "DELETE FROM memory_terms WHERE rowid IN (SELECT rowid FROM memories WHERE deleted_at IS NOT NULL)"
            )
            cur = conn.execute("DELETE FROM memories WHERE deleted_at IS NOT NULL")
            return cur.rowcount

    # -- search -----------------------------------------------------------

    def keyword_search(
        self, terms: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        if not terms or not scopes:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        sql = (
            "SELECT m.id, bm25(memory_terms) AS rank FROM memory_terms "
            "JOIN memories m ON m.rowid = memory_terms.rowid "
            f"WHERE memory_terms MATCH ? AND m.scope IN ({_placeholders(len(scopes))}) AND m.deleted_at IS NULL "
            "ORDER BY rank LIMIT ?"
        )
        with self._lock:
            try:
                rows = self._conn.execute(sql, [match, *scopes, limit]).fetchall()
            except sqlite3.OperationalError as exc:
                raise db.translate(exc, self.path) from exc
        return [(row[0], -float(row[1])) for row in rows]

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        with self._lock:
            index = self._refresh(model_id, len(vector))
            return index.search(vector, scopes, limit)

    def _refresh(self, model_id: str, dim: int) -> VectorIndex:
        index = self._indexes.get(model_id)
        if index is None or index.dim != dim:
            index = self._indexes[model_id] = VectorIndex(dim)
        rows = self._conn.execute(
            "SELECT e.seq, m.id, m.scope, e.vector, m.deleted_at FROM embeddings e "
            "JOIN memories m ON m.rowid = e.memory_rowid WHERE e.model = ? AND e.seq > ? ORDER BY e.seq",
            (model_id, index.last_seq),
        ).fetchall()
        for seq, memory_id, scope, blob, deleted_at in rows:
            if deleted_at is None:
                index.add(memory_id, scope, np.frombuffer(blob, dtype=np.float32))
            else:
                index.remove(memory_id)
            index.last_seq = seq
        return index

    # -- derived indexes ------------------------------------------------

    def put_vectors(self, model_id: str, rows: Sequence[tuple[str, npt.NDArray[np.float32]]]) -> None:
        if not rows:
            return
        with self._lock, db.write(self._conn, self.path) as conn:
            seq = conn.execute("SELECT coalesce(max(seq), 0) FROM embeddings").fetchone()[0]
            for memory_id, vector in rows:
                seq += 1
                vec = np.ascontiguousarray(vector, dtype=np.float32)
                cur = conn.execute(
                    "UPDATE memories SET embedding_model = ? WHERE id = ? RETURNING rowid",
                    (model_id, memory_id),
                )
                found = cur.fetchone()
                if found is None:  # purged meanwhile
                    continue
                conn.execute(
                    "INSERT OR REPLACE INTO embeddings (memory_rowid, model, dim, vector, seq) VALUES (?, ?, ?, ?, ?)",
                    (found[0], model_id, len(vec), vec.tobytes(), seq),
                )

    def unindexed(self, model_id: str, limit: int) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, content FROM memories WHERE (embedding_model IS NULL OR embedding_model != ?) "
                "AND deleted_at IS NULL ORDER BY rowid LIMIT ?",
                (model_id, limit),
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def count_unindexed(self, model_id: str) -> int:
        with self._lock:
            row = self._conn.execute(
                "SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model != ?) "
                "AND deleted_at IS NULL",
                (model_id,),
            ).fetchone()
        return int(row[0])

    def reset_index(self) -> None:
        with self._lock, db.write(self._conn, self.path) as conn:
            conn.execute("DELETE FROM embeddings")
            conn.execute("UPDATE memories SET embedding_model = NULL")
            conn.execute("DELETE FROM memory_terms")
            self._indexes.clear()

    def rewrite_terms(self, rows: Sequence[tuple[str, str]]) -> None:
        with self._lock, db.write(self._conn, self.path) as conn:
            for memory_id, terms in rows:
                conn.execute(
                    "INSERT OR REPLACE INTO memory_terms (rowid, terms) "
                    "SELECT rowid, ? FROM memories WHERE id = ?",
                    (terms, memory_id),
                )

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
