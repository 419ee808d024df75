"""The memory rows, mapped once: one row layer over a ``Database`` that both memory stores share.

A memory row is written and read the same way on SQLite and PostgreSQL, so its columns are
declared here once (``COLUMNS``), rows are read by column name, and every statement about
rows (get, find by hash, list, touch, forget, supersede, purge, stats…) is written once in
the SQL both engines speak. What differs by engine is search and the upkeep of the derived
indexes (``_sqlite_store``: in-process caches; ``_postgres_store``: GIN and pgvector in the
database): a store subclasses ``MemoryRows`` and fills in the hooks below, which run inside
the same transaction as the row change they follow.

A store holds the process's ``Database`` (``store.database(target)``) and no lock or connection of
its own: every write is ``with database.write()``, so a caller's transaction (``write()``, the
memory engine's change and its audit row) takes the store's writes in as savepoints.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ._about import DUE, RULES, about_column, stored_about
from ._records import Memory, check_source
from ._schema import MEMORY_SCHEMA
from ._store import StoreStats

#: The columns a ``Memory`` is stored in, in the order ``values`` gives them (``terms`` is the
#: derived keyword text, written beside them and never read back into a ``Memory``).
COLUMNS = (
    "id",
    "scope",
    "content",
    "category",
    "importance",
    "source",
    "provenance",
    "created_at",
    "updated_at",
    "valid_until",
    "deleted_at",
    "content_hash",
    "embedding_model",
    "context",
    "search_keys",
    "search_keys_by",
    "about",
)
SELECT = f"SELECT {', '.join(COLUMNS)} FROM memories"
INSERT = f"INSERT INTO memories ({', '.join(COLUMNS)}, terms) VALUES ({', '.join('?' * (len(COLUMNS) + 1))})"
MAX_VARS = 900  # SQLite's bound parameters per statement, with room to spare
LIVE = "deleted_at IS NULL"


def _stamp(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def stored_keys(search_keys: str | None) -> tuple[str, ...]:
    """A row's search keys as stored (one a line: a key never holds a line break, ``check_keys``)."""
    return tuple(search_keys.split("\n")) if search_keys else ()


def to_memory(row: Sequence[Any]) -> Memory:
    """A ``Memory`` from a row of ``SELECT`` (its columns in ``COLUMNS`` order).

    Unpacked by position, without a dict per row, and an empty provenance without the JSON
    parser: recall turns ~120 candidate rows into memories per question (issue 23 fl23).
    """
    (
        memory_id,
        scope,
        content,
        category,
        importance,
        source,
        provenance,
        created_at,
        updated_at,
        valid_until,
        deleted_at,
        content_hash,
        embedding_model,
        context,
        search_keys,
        search_keys_by,
        about,
    ) = row
    return Memory(
        id=memory_id,
        scope=scope,
        content=content,
        category=category,
        importance=importance,
        source=check_source(source),
        provenance={} if provenance == "{}" else json.loads(provenance),
        created_at=datetime.fromisoformat(created_at),
        updated_at=datetime.fromisoformat(updated_at),
        valid_until=_when(valid_until),
        deleted_at=_when(deleted_at),
        content_hash=content_hash,
        embedding_model=embedding_model,
        context=context,
        keys=stored_keys(search_keys),
        keys_by=search_keys_by,
        about=stored_about(about),
    )


def values(memory: Memory) -> tuple[Any, ...]:
    """The row of ``memory``, in ``COLUMNS`` order."""
    by_name = {
        "id": memory.id,
        "scope": memory.scope,
        "content": memory.content,
        "category": memory.category,
        "importance": memory.importance,
        "source": memory.source,
        "provenance": dumps(memory.provenance),
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "valid_until": _stamp(memory.valid_until),
        "deleted_at": _stamp(memory.deleted_at),
        "content_hash": memory.content_hash,
        "embedding_model": memory.embedding_model,
        "context": memory.context,
        "search_keys": "\n".join(memory.keys) or None,  # a key never holds a line break (``check_keys``)
        "search_keys_by": memory.keys_by if memory.keys else None,
        "about": about_column(memory),  # made with the text, in its write (``_about``)
    }
    return tuple(by_name[column] for column in COLUMNS)


def dumps(provenance: dict[str, Any]) -> str:
    return json.dumps(provenance, ensure_ascii=False, sort_keys=True)


def chunk_vectors(blob: bytes, chunks: int) -> npt.NDArray[np.float32]:
    """An ``embeddings`` row's vectors: float32 bytes, one row per chunk."""
    return np.frombuffer(blob, dtype=np.float32).reshape(chunks, -1)


def marks(n: int) -> str:
    return ",".join("?" * n)


def starts_with(dialect: db.Dialect, column: str, prefix: str) -> tuple[str, list[str]]:
    """``column`` starts with ``prefix``, as each engine's index can answer it.

    SQLite: a range on the column (its btree); PostgreSQL: ``LIKE 'prefix%'`` (the
    ``text_pattern_ops`` index; a range would follow the database's collation, not code points).
    """
    if dialect == "postgresql":
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return f"{column} LIKE ? ESCAPE '\\'", [escaped + "%"]
    return f"({column} >= ? AND {column} < ?)", [prefix, prefix + "\U0010ffff"]


class MemoryRows:
    """Every row-level method of ``MemoryStore`` over one ``Database``; subclasses add search.

    Hooks, each running in the write transaction of the change it follows:
    ``_liveness_changed`` (a row forgotten or restored), ``_rows_purged``, ``_index_reset``
    and ``_terms_rewritten``. ``write`` opens that transaction (a store that needs more of
    its connection than ``Tx`` offers hands out more, still inside ``database.write()``).
    """

    path: str

    def __init__(self, database: db.Database) -> None:
        database.ensure(MEMORY_SCHEMA)
        self._db = self.database = database
        self.path = database.where

    def write(self) -> AbstractContextManager[db.Tx]:
        """A write transaction on the store's database (a savepoint in this thread's open one)."""
        return self._db.write()

    # -- writing ---------------------------------------------------------

    def insert(self, memory: Memory, terms: str) -> None:
        self.insert_many([(memory, terms)])

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None:
        if not rows:
            return
        with self.write() as tx:
            tx.executemany(INSERT, [(*values(memory), terms) for memory, terms in rows])

    def touch(self, memory_id: str, at: datetime, importance: float | None = None) -> None:
        """Seen again: a new ``updated_at``, and the higher of the two importances."""
        with self.write() as tx:
            tx.execute(
                "UPDATE memories SET updated_at = ?, "
                "importance = CASE WHEN ? > importance THEN ? ELSE importance END WHERE id = ?",
                (at.isoformat(), importance, importance, memory_id),
            )

    def held_keys(self, memory_id: str) -> tuple[tuple[str, ...], str | None] | None:
        """A live row's search keys and who gave them, read in the caller's write transaction and the row
        held until it commits (PostgreSQL: ``FOR UPDATE``; SQLite: ``BEGIN IMMEDIATE`` holds the file), so
        keys merged into them and written in it lose no other writer's; None when no live row has the id."""
        for_update = " FOR UPDATE" if self._db.dialect == "postgresql" else ""
        with self.write() as tx:
            row = tx.execute(
                f"SELECT search_keys, search_keys_by FROM memories WHERE id = ? AND {LIVE}{for_update}",
                (memory_id,),
            ).fetchone()
        return None if row is None else (stored_keys(row[0]), row[1])

    def set_keys(self, memory_id: str, keys: tuple[str, ...], keys_by: str | None, terms: str) -> None:
        """A live row's search keys and its terms made with them; its vector is to be made again
        (``embedding_model`` NULL until ``put_vectors``: a failed embed leaves it to ``index_pending``)."""
        with self.write() as tx:
            row = tx.execute(
                "UPDATE memories SET search_keys = ?, search_keys_by = ?, terms = ?, readings = 1, "
                f"embedding_model = NULL WHERE id = ? AND {LIVE} RETURNING rowid, scope",
                ("\n".join(keys) or None, keys_by if keys else None, terms, memory_id),
            ).fetchone()
            if row is not None:
                self._terms_changed(tx, memory_id, int(row[0]), row[1])

    def set_deleted(self, memory_id: str, deleted_at: datetime | None) -> None:
        stamp = _stamp(deleted_at)
        with self.write() as tx:
            row = tx.execute(
                "UPDATE memories SET deleted_at = ?, updated_at = coalesce(?, updated_at) WHERE id = ? "
                "RETURNING rowid, scope",
                (stamp, stamp, memory_id),
            ).fetchone()
            if row is not None:
                self._liveness_changed(tx, memory_id, int(row[0]), row[1], alive=deleted_at is None)

    def set_valid_until(
        self, memory_id: str, valid_until: datetime | None, provenance_patch: dict[str, Any]
    ) -> None:
        stamp = _stamp(valid_until)
        with self.write() as tx:
            provenance = self._merged(tx, memory_id, provenance_patch, live_only=False)
            if provenance is None:
                return
            tx.execute(
                "UPDATE memories SET valid_until = ?, provenance = ?, updated_at = coalesce(?, updated_at) WHERE id = ?",
                (stamp, provenance, stamp, memory_id),
            )

    def patch_provenance(self, memory_id: str, patch: dict[str, Any]) -> bool:
        """Merge ``patch`` into a live row's provenance, read and written in one transaction (so a
        failure leaves the row as it was); False when no live row has the id."""
        with self.write() as tx:
            provenance = self._merged(tx, memory_id, patch, live_only=True)
            if provenance is not None:
                tx.execute("UPDATE memories SET provenance = ? WHERE id = ?", (provenance, memory_id))
            return provenance is not None

    def _merged(self, tx: db.Tx, memory_id: str, patch: dict[str, Any], *, live_only: bool) -> str | None:
        """The row's provenance with ``patch`` merged in (as JSON), the row locked until the commit."""
        for_update = " FOR UPDATE" if self._db.dialect == "postgresql" else ""  # SQLite: BEGIN IMMEDIATE
        live = f" AND {LIVE}" if live_only else ""
        row = tx.execute(
            f"SELECT provenance FROM memories WHERE id = ?{live}{for_update}", (memory_id,)
        ).fetchone()
        return None if row is None else dumps({**json.loads(row[0]), **patch})

    def purge_deleted(self) -> int:
        """Delete forgotten rows for good (their embeddings go by cascade)."""
        with self.write() as tx:
            count = tx.execute(f"DELETE FROM memories WHERE NOT ({LIVE})").rowcount
            tx.execute("DELETE FROM keyword_snapshots")  # they hold the purged rows' terms
            self._rows_purged(tx)
            return count

    def reset_index(self) -> None:
        with self.write() as tx:
            tx.execute("DELETE FROM embeddings")
            tx.execute("DELETE FROM keyword_snapshots")
            tx.execute("UPDATE memories SET embedding_model = NULL, terms = ''")
            self._index_reset(tx)

    def set_about(self, rows: Sequence[tuple[str, str | None]]) -> None:
        """Store the spans each row's text is about (``_about.about_column``), by id: one ``UPDATE`` and
        one write a batch (a statement trigger fires once a batch on PostgreSQL). A row stored by
        these rules since it was read (an edit, another process's fill) is left as it is."""
        step = MAX_VARS // 2
        for start in range(0, len(rows), step):
            chunk = rows[start : start + step]
            with self.write() as tx:
                tx.execute(  # a VALUES list's columns are column1, column2… on both engines
                    f"UPDATE memories SET about = v.column2 FROM (VALUES {', '.join(['(?, ?)'] * len(chunk))}) "
                    f"AS v WHERE memories.id = v.column1 AND {DUE}",
                    [v for row in chunk for v in row],
                )

    def about_due(self, limit: int, after: int = 0) -> list[tuple[int, Memory]]:
        """Up to ``limit`` rows (with forgotten ones) past rowid ``after`` whose ``about`` waits to be
        stored (``_about.DUE``), in rowid order: ``MemoryEngine.fill_about`` walks them."""
        rows = self._read(
            f"SELECT rowid, {', '.join(COLUMNS)} FROM memories WHERE rowid > ? AND {DUE} ORDER BY rowid LIMIT ?",
            (after, limit),
        )
        return [(int(row[0]), to_memory(row[1:])) for row in rows]

    def count_about_due(self) -> int:
        """Live rows past the walk's mark (``about_walked``) whose ``about`` waits to be stored
        (``_about.DUE``): ``doctor``'s ``dates`` line."""
        walked = self.about_walked()
        return int(
            self._read(f"SELECT count(*) FROM memories WHERE rowid > ? AND {DUE} AND {LIVE}", (walked,))[0][0]
        )

    def about_walked(self) -> int:
        """The last rowid ``fill_about`` looked at by these rules (``_about.RULES``); 0: none yet."""
        rows = self._read("SELECT seen_rowid FROM about_walked WHERE rules = ?", (RULES,))
        return int(rows[0][0]) if rows else 0

    def last_rowid(self) -> int:
        """The highest rowid of ``memories`` (0: none)."""
        return int(self._read("SELECT coalesce(max(rowid), 0) FROM memories")[0][0])

    def set_about_walked(self, rowid: int) -> None:
        """Note that the rows up to ``rowid`` hold their dates by these rules (``about_walked``)."""
        with self.write() as tx:
            tx.execute(
                "INSERT INTO about_walked (rowid, rules, seen_rowid) VALUES (1, ?, ?) "
                "ON CONFLICT (rowid) DO UPDATE SET rules = excluded.rules, seen_rowid = excluded.seen_rowid",
                (RULES, rowid),
            )

    def rewrite_terms(self, rows: Sequence[tuple[str, str]]) -> None:
        with self.write() as tx:
            tx.executemany(
                # terms made now hold the readings of Japanese words (``0015_ja23b_terms_readings``)
                "UPDATE memories SET terms = ?, readings = 1 WHERE id = ?",
                [(terms, mid) for mid, terms in rows],
            )
            tx.execute("DELETE FROM keyword_snapshots")
            self._terms_rewritten(tx)

    def bulk(self) -> AbstractContextManager[None]:
        """A bulk load: nothing to defer here (see ``PostgresMemoryStore.bulk``)."""
        from contextlib import nullcontext

        return nullcontext()

    # -- hooks: index upkeep, by engine ------------------------------------

    def _liveness_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str, *, alive: bool) -> None:
        """A row was forgotten (``alive`` False) or restored, in ``tx``."""

    def _rows_purged(self, tx: db.Tx) -> None: ...

    def _terms_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str) -> None:
        """A live row's terms were written again in ``tx`` (PostgreSQL's trigger moves its postings)."""

    def _index_reset(self, tx: db.Tx) -> None: ...

    def _terms_rewritten(self, tx: db.Tx) -> None: ...

    # -- reading ---------------------------------------------------------

    def _read(self, sql: str, params: db.Params = ()) -> list[Any]:
        return self._db.execute(sql, params).fetchall()

    def get(self, memory_id: str) -> Memory | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        ids = list(dict.fromkeys(memory_ids))
        out: dict[str, Memory] = {}
        for start in range(0, len(ids), MAX_VARS):
            chunk = ids[start : start + MAX_VARS]
            rows = self._read(f"{SELECT} WHERE id IN ({marks(len(chunk))})", chunk)
            out.update((memory.id, memory) for memory in map(to_memory, rows))
        return out

    def memories_with_vectors(
        self, memory_ids: Sequence[str], model_id: str | None
    ) -> tuple[dict[str, Memory], dict[str, npt.NDArray[np.float32]]]:
        """Recall's candidates: their rows (``get_many``) and, when ``model_id`` is given, the first
        chunk's vector of each live one (``vectors_of``). An engine that pays a round trip a read
        answers both in one."""
        memories = self.get_many(memory_ids)
        return memories, self.vectors_of(model_id, memory_ids) if model_id is not None else {}

    def vectors_of(self, model_id: str, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        raise NotImplementedError

    def resolve_id(
        self, id_or_prefix: str, *, scopes: Sequence[str] | None = None, include_deleted: bool = True
    ) -> str | None:
        where, params = starts_with(self._db.dialect, "id", id_or_prefix)
        if scopes is not None:
            if not scopes or len(scopes) > MAX_VARS - 2:
                return None
            where += f" AND scope IN ({marks(len(scopes))})"
            params += scopes
        if not include_deleted:
            where += f" AND {LIVE}"
        rows = self._read(f"SELECT id FROM memories WHERE {where} LIMIT 2", params)
        return rows[0][0] if len(rows) == 1 else None

    def find_by_hash(self, scope: str, content_hash: str) -> Memory | None:
        rows = self._read(
            f"{SELECT} WHERE content_hash = ? AND scope = ? AND {LIVE} ORDER BY created_at LIMIT 1",
            (content_hash, scope),
        )
        return to_memory(rows[0]) if rows else None

    def stored_hashes(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """``find_by_hash`` for many keys, one statement per ``MAX_VARS`` hashes (an import's dedupe: one
        read a batch, not one a line — a round trip per line was 60 % of an import on PostgreSQL)."""
        wanted = set(keys)
        hashes = list(dict.fromkeys(h for _, h in wanted))
        found: set[tuple[str, str]] = set()
        for start in range(0, len(hashes), MAX_VARS):
            chunk = hashes[start : start + MAX_VARS]
            rows = self._read(
                f"SELECT scope, content_hash FROM memories WHERE content_hash IN ({marks(len(chunk))}) AND {LIVE}",
                chunk,
            )
            found.update(key for key in ((r[0], r[1]) for r in rows) if key in wanted)
        return found

    def list_memories(
        self,
        scope: str | None,
        *,
        include_deleted: bool,
        only_deleted: bool = False,
        limit: int | None = None,
    ) -> Iterator[Memory]:
        where: list[str] = []
        params: list[Any] = []
        if scope is not None:
            below, params = starts_with(self._db.dialect, "scope", scope + "/")
            where.append(f"(scope = ? OR {below})")
            params.insert(0, scope)
        if only_deleted:
            where.append(f"NOT ({LIVE})")
        elif not include_deleted:
            where.append(LIVE)
        sql = SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return map(to_memory, self._read(sql, params))

    def unindexed(
        self, model_id: str, limit: int, after: int = 0
    ) -> list[tuple[int, str, str, str | None, tuple[str, ...]]]:
        rows = self._read(
            f"SELECT rowid, id, content, context, search_keys FROM memories WHERE rowid > ? AND {LIVE} "
            "AND (embedding_model IS NULL OR embedding_model != ?) ORDER BY rowid LIMIT ?",
            (after, model_id, limit),
        )
        return [(int(r[0]), r[1], r[2], r[3], stored_keys(r[4])) for r in rows]

    def count_unindexed(self, model_id: str) -> int:
        # three ranges of the ``embedding_model`` index, not ``!=`` (a scan of every row: 58-84 ms at 100k,
        # at each server's start — ``index_in_background`` — when nothing is pending)
        rows = self._read(
            "SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model < ? "
            f"OR embedding_model > ?) AND {LIVE}",
            (model_id, model_id),
        )
        return int(rows[0][0])

    def count_awaiting_vectors(self, model_id: str) -> int:
        """Live rows marked to be embedded again (``embedding_model`` NULL: a keyed fact
        ``0027_rk26_keyed_vectors_again`` marked, a repeat's new keys whose embed failed) that still hold a
        vector of ``model_id``: recall finds them by it meanwhile (the ``embedding_model`` index's NULL range)."""
        rows = self._read(
            f"SELECT count(*) FROM memories m WHERE m.embedding_model IS NULL AND m.{LIVE} AND EXISTS "
            "(SELECT 1 FROM embeddings e WHERE e.memory_rowid = m.rowid AND e.model = ?)",
            (model_id,),
        )
        return int(rows[0][0])

    def embedded_otherwise(self, model_id: str) -> bool:
        # two ranges of the ``embedding_model`` index, not ``!=`` (a scan of every row: 0.8 s at 1M)
        rows = self._read(
            f"SELECT 1 FROM memories WHERE (embedding_model < ? OR embedding_model > ?) AND {LIVE} LIMIT 1",
            (model_id, model_id),
        )
        return bool(rows)

    def count_without_readings(self) -> int:
        # the partial index ``memories_without_readings`` answers it alone (no row read)
        rows = self._read(f"SELECT count(*) FROM memories WHERE readings IS NULL AND {LIVE}")
        return int(rows[0][0])

    def stats(self) -> StoreStats:
        def counts(column: str, extra: str = "") -> dict[str, int]:
            rows = self._read(
                f"SELECT {column}, count(*) FROM memories WHERE {LIVE}{extra} GROUP BY {column}"
            )
            return {key: int(n) for key, n in rows}

        def count(where: str) -> int:
            return int(self._read(f"SELECT count(*) FROM memories WHERE {where}")[0][0])

        return StoreStats(
            memories=count(LIVE),
            deleted=count(f"NOT ({LIVE})"),
            indexed=count(f"{LIVE} AND embedding_model IS NOT NULL"),
            by_scope=counts("scope"),
            by_category=counts("category"),
            embedding_models=counts("embedding_model", " AND embedding_model IS NOT NULL"),
            path=self.path,
            schema_version=db.PER_PACKAGE,
        )

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""
