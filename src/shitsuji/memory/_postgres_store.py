"""The PostgreSQL + pgvector implementation of ``MemoryStore``: recall runs in the database.

Any number of processes on any number of machines share one database, so nothing is cached
in the process. The tables are the SQLite ones (``memories``, ``embeddings``) plus what
migration ``0011_postgres_recall`` derives:

- **Keywords**: ``memories.keywords`` is a generated ``tsvector`` of the stored terms (the
  engine's Japanese bigrams and English stems, taken verbatim) plus one lexeme naming the
  row's scope, under a GIN index: one index look-up finds the rows of these scopes holding
  any query term. BM25 is scored here in Python over exactly those rows, with the document
  count and average length of the searched scopes (generated per-row counts, read from a
  covering index) — the scores an in-process SQLite index holding those scopes gives.
- **Vectors**: ``embeddings`` stays the source of truth (float32 blobs, as in SQLite). Each
  model's vectors are also kept, one row per chunk of a live memory, in a pgvector table
  ``memory_vectors_<n>`` (``n`` from ``memory_vector_models``, made when a model's first
  vectors arrive, its dimension taken from them). A scope is searched exactly (a btree on the
  scope, every vector compared, each memory's best chunk) until it holds more than
  ``GRAPH_MIN`` vectors; then it joins the graph: its rows get ``graph = true`` and sit under
  a partial HNSW index (cosine) walked with pgvector 0.8's iterative scan
  (``memory_graph_scopes`` lists such scopes). A million memories in 10,000 scopes never pay
  for graph upkeep on ingest; a 100,000-memory scope is not compared one by one. The derived
  rows are written in the transaction that writes ``embeddings``, removed when a memory is
  forgotten and written again when it is restored.

**Derived-row rule** (what a copy of the tables relies on): opening a store derives the
vector rows of every live ``embeddings`` row whose ``seq`` is above
``memory_vector_state.derived_seq`` (0 in a new database: all of them), then raises that
mark; it also moves the ``embeddings_seq_gen`` sequence past the highest ``seq``. So rows
copied into ``memories`` and ``embeddings`` by column name are searchable once a store opens
the database; the generated columns (``keywords``, ``chunk_count``, ``term_count``) and the
tables ``memory_vector_models``, ``memory_vector_state``, ``memory_graph_scopes`` and
``memory_vectors_<n>`` are derived: never copy them. Opening a store also moves ``memories``'
identity sequence past the highest ``rowid`` copied in.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import store as db
from ..errors import StoreError
from ._keywords import bm25
from ._records import Memory
from ._schema import MEMORY_SCHEMA
from ._slots import Match
from ._sqlite_store import _COLUMNS, _params, _row_to_memory
from ._store import StoreStats

#: A scope with more chunk vectors than this joins the HNSW graph (``graph`` rows, under a
#: partial HNSW index); smaller scopes are compared exactly, every vector, through a btree on
#: the scope: faster than walking a graph whose nearest neighbours are mostly in other scopes,
#: exact, and no graph upkeep on ingest (an HNSW insert costs ~2 ms; a million memories in
#: 10,000 scopes never need the graph).
GRAPH_MIN = 10_000
FILL_BATCH = 5_000
_ADVISORY_FILL = 0x5348_4956  # one process derives copied rows at a time

# the scope test is in the tsquery (for the GIN index) and in plain SQL too (for the scope index,
# which the planner prefers when the scopes hold fewer rows than the words)
KEYWORD_SQL = (
    "SELECT id, terms FROM memories WHERE keywords @@ %s::tsquery AND scope = ANY(%s) AND deleted_at IS NULL "
    "ORDER BY rowid"
)


def graph_sql(table: str) -> str:
    """The nearest chunks of large scopes through the HNSW index (``q``: vector, ``s``: scopes, ``n``)."""
    return (
        f"SELECT v.memory_rowid, v.chunk, -(v.embedding <#> %(q)s) FROM {table} v "
        "WHERE v.graph AND v.scope = ANY(%(s)s) ORDER BY v.embedding <=> %(q)s LIMIT %(n)s"
    )


def exact_sql(table: str) -> str:
    """Each memory's best chunk among the scopes' vectors outside the graph, compared one by one.

    DISTINCT ON keeps each memory's best chunk; the planner cannot take the graph for it.
    """
    return (
        "SELECT memory_rowid, chunk, score FROM ("
        "SELECT DISTINCT ON (v.memory_rowid) v.memory_rowid, v.chunk, -(v.embedding <#> %(q)s) AS score "
        f"FROM {table} v WHERE NOT v.graph AND v.scope = ANY(%(s)s) "
        "ORDER BY v.memory_rowid, v.embedding <#> %(q)s) b ORDER BY score DESC, memory_rowid LIMIT %(n)s"
    )


_registered: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _lexeme(term: str) -> str:
    """``term`` as a quoted tsquery lexeme, taken verbatim."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _query(terms: Sequence[str], scopes: Sequence[str]) -> str:
    """Rows holding any of ``terms`` in any of ``scopes`` (the generated column's scope lexeme)."""
    words = " | ".join(_lexeme(t) for t in terms)
    where = " | ".join(_lexeme(" scope " + s) for s in scopes)
    return f"({where}) & ({words})"


def _matrix(blob: bytes, chunks: int) -> npt.NDArray[np.float32]:
    return np.frombuffer(blob, dtype=np.float32).reshape(chunks, -1)


class PostgresMemoryStore:
    """Memory rows in a PostgreSQL database with pgvector, shared by any number of processes."""

    def __init__(self, url: str, *, graph_min: int = GRAPH_MIN) -> None:
        self.graph_min = graph_min
        database = db.open_database(url, MEMORY_SCHEMA)
        assert isinstance(database, db.PostgresDatabase)
        self._db = database
        self.path = database.where
        self._models: dict[str, tuple[int, int]] = {}  # model -> (table number, dim)
        self._lock = threading.Lock()
        self._vector_oid: int | None = None
        self.fill_derived()

    # -- plumbing ---------------------------------------------------------

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """A pooled connection that speaks pgvector (numpy arrays in, numpy arrays out)."""
        with self._db.connection() as conn:
            self._register(conn)
            yield conn

    def _register(self, conn: Any) -> None:
        if conn in _registered:
            return
        from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

        register_vector(conn)
        _registered[conn] = True

    def _table(self, model_id: str, conn: Any = None) -> tuple[str, int] | None:
        """(table, dim) of ``model_id``'s vectors, if the model has any (read on ``conn`` if given)."""
        found = self._models.get(model_id)
        if found is None:
            sql = "SELECT rowid, dim FROM memory_vector_models WHERE model = %s"
            if conn is None:
                with self._conn() as own:
                    row = own.execute(sql, (model_id,)).fetchone()
            else:
                row = conn.execute(sql, (model_id,)).fetchone()
            if row is None:
                return None
            found = self._models[model_id] = (int(row[0]), int(row[1]))
        return f"memory_vectors_{found[0]}", found[1]

    def _tables(self) -> list[str]:
        rows = self._db.execute("SELECT rowid FROM memory_vector_models").fetchall()
        return [f"memory_vectors_{int(r[0])}" for r in rows]

    def _make_table(self, conn: Any, model_id: str, dim: int) -> str:
        """The model's vector table, made (with its indexes) if this is its first vector."""
        found = self._table(model_id, conn)
        if found is None:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADVISORY_FILL,))
                row = conn.execute(
                    "SELECT rowid, dim FROM memory_vector_models WHERE model = %s", (model_id,)
                ).fetchone()
                if row is None:
                    row = conn.execute(
                        "INSERT INTO memory_vector_models (model, dim) VALUES (%s, %s) RETURNING rowid, dim",
                        (model_id, dim),
                    ).fetchone()
                    name = f"memory_vectors_{int(row[0])}"
                    # the number and the dimension are integers we made: no text of a user's reaches DDL
                    conn.execute(
                        f"CREATE TABLE {name} ("
                        "memory_rowid BIGINT NOT NULL REFERENCES memories (rowid) ON DELETE CASCADE, "
                        "chunk INTEGER NOT NULL, scope TEXT NOT NULL, graph BOOLEAN NOT NULL, "
                        f"embedding vector({int(dim)}) NOT NULL, PRIMARY KEY (memory_rowid, chunk))"
                    )
                    conn.execute(f"CREATE INDEX {name}_scope ON {name} (scope) WHERE NOT graph")
                    conn.execute(
                        f"CREATE INDEX {name}_hnsw ON {name} USING hnsw (embedding vector_cosine_ops) WHERE graph"
                    )
            found = self._table(model_id, conn)
            assert found is not None
        name, known = found
        if known != dim:
            raise StoreError(
                f"model {model_id} has {known}-dimensional vectors here, not {dim}: run `shitsuji reindex`"
            )
        return name

    # -- rows -------------------------------------------------------------

    def insert(self, memory: Memory, terms: str) -> None:
        self.insert_many([(memory, terms)])

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None:
        if not rows:
            return
        with self._db.write() as tx:
            tx.executemany(
                f"INSERT INTO memories ({_COLUMNS}, terms) VALUES ({','.join('?' * 15)})",
                [(*_params(memory), terms) for memory, terms in rows],
            )

    def get(self, memory_id: str) -> Memory | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ANY(?)", (ids,)).fetchall()
        return {row[0]: _row_to_memory(row) for row in rows}

    def resolve_id(
        self, id_or_prefix: str, *, scopes: Sequence[str] | None = None, include_deleted: bool = True
    ) -> str | None:
        escaped = id_or_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        sql = "SELECT id FROM memories WHERE id LIKE ? ESCAPE '\\'"
        params: list[Any] = [escaped + "%"]
        if scopes is not None:
            if not scopes:
                return None
            sql += " AND scope = ANY(?)"
            params.append(list(scopes))
        if not include_deleted:
            sql += " AND deleted_at IS NULL"
        rows = self._db.execute(sql + " LIMIT 2", params).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def find_by_hash(self, scope: str, content_hash: str) -> Memory | None:
        row = self._db.execute(
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
        where: list[str] = []
        params: list[Any] = []
        if scope is not None:
            where.append("(scope = ? OR starts_with(scope, ?))")
            params += [scope, scope + "/"]
        if only_deleted:
            where.append("deleted_at IS NOT NULL")
        elif not include_deleted:
            where.append("deleted_at IS NULL")
        sql = f"SELECT {_COLUMNS} FROM memories"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        rows = self._db.execute(sql, params).fetchall()
        return (_row_to_memory(row) for row in rows)

    def touch(self, memory_id: str, at: datetime, importance: float | None = None) -> None:
        with self._db.write() as tx:
            tx.execute(
                "UPDATE memories SET updated_at = ?, "
                "importance = greatest(importance, coalesce(?::double precision, importance)) WHERE id = ?",
                (at.isoformat(), importance, memory_id),
            )

    def set_deleted(self, memory_id: str, deleted_at: datetime | None) -> None:
        """Forget (or restore) a row; its vector rows go (or come back from ``embeddings``) with it."""
        stamp = deleted_at.isoformat() if deleted_at else None
        tables = self._tables()
        with self._conn() as conn, conn.transaction():
            row = conn.execute(
                "UPDATE memories SET deleted_at = %s, updated_at = coalesce(%s, updated_at) WHERE id = %s "
                "RETURNING rowid, scope",
                (stamp, stamp, memory_id),
            ).fetchone()
            if row is None:
                return
            for name in tables:
                conn.execute(f"DELETE FROM {name} WHERE memory_rowid = %s", (row[0],))
            if deleted_at is None:
                found = conn.execute(
                    "SELECT model, dim, chunks, vectors FROM embeddings WHERE memory_rowid = %s", (row[0],)
                ).fetchone()
                if found is not None:
                    name = self._make_table(conn, found[0], int(found[1]))
                    self._write_vectors(conn, name, found[0], [(row[0], row[1], _matrix(found[3], found[2]))])

    def set_valid_until(
        self, memory_id: str, valid_until: datetime | None, provenance_patch: dict[str, Any]
    ) -> None:
        stamp = valid_until.isoformat() if valid_until else None
        with self._db.write() as tx:
            row = tx.execute(
                "SELECT provenance FROM memories WHERE id = ? FOR UPDATE", (memory_id,)
            ).fetchone()
            if row is None:
                return
            provenance = {**json.loads(row[0]), **provenance_patch}
            tx.execute(
                "UPDATE memories SET valid_until = ?, provenance = ?, updated_at = coalesce(?, updated_at) WHERE id = ?",
                (stamp, json.dumps(provenance, ensure_ascii=False, sort_keys=True), stamp, memory_id),
            )

    def purge_deleted(self) -> int:
        """Delete forgotten rows for good (their embeddings and vector rows go by cascade)."""
        with self._db.write() as tx:
            return tx.execute("DELETE FROM memories WHERE deleted_at IS NOT NULL").rowcount

    # -- search -----------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        """BM25 of the rows the GIN index finds, with the searched scopes' statistics."""
        words = [t for t in dict.fromkeys(terms) if t and not any(c.isspace() for c in t)]
        scopes = list(dict.fromkeys(scopes))
        if not words or not scopes or limit <= 0:
            return []
        with self._conn() as conn:
            rows = conn.execute(KEYWORD_SQL, (_query(words, scopes), scopes)).fetchall()
            if not rows:
                return []
            docs, length = conn.execute(
                "SELECT coalesce(sum(chunk_count), 0), coalesce(sum(term_count), 0) FROM memories "
                "WHERE scope = ANY(%s) AND deleted_at IS NULL",
                (scopes,),
            ).fetchone()
        return bm25(rows, words, int(docs), int(length), limit)

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[Match]:
        """Best chunk per live row by cosine: exactly within small scopes, through the graph in large ones."""
        found = self._table(model_id)
        scopes = list(dict.fromkeys(scopes))
        if found is None or found[1] != len(vector) or not scopes or limit <= 0:
            return []
        name = found[0]
        query = np.ascontiguousarray(vector, dtype=np.float32)
        with self._conn() as conn:
            params = {"q": query, "s": scopes, "n": limit}
            best = {
                int(r[0]): (int(r[1]), float(r[2])) for r in conn.execute(exact_sql(name), params).fetchall()
            }
            big = self._graph_scopes(conn, model_id, scopes)
            if big:
                for rowid, (chunk, score) in self._graph_search(
                    conn, name, query, sorted(big), limit
                ).items():
                    if rowid not in best or score > best[rowid][1]:
                        best[rowid] = (chunk, score)
            ranked = sorted(best.items(), key=lambda item: (-item[1][1], item[0]))[:limit]
            ids = dict(
                conn.execute(
                    "SELECT rowid, id FROM memories WHERE rowid = ANY(%s) AND deleted_at IS NULL",
                    ([rowid for rowid, _ in ranked],),
                ).fetchall()
            )
        return [Match(ids[rowid], score, chunk) for rowid, (chunk, score) in ranked if rowid in ids]

    def _graph_search(
        self, conn: Any, name: str, query: npt.NDArray[np.float32], scopes: list[str], limit: int
    ) -> dict[int, tuple[int, float]]:
        """Each memory's best chunk among the nearest graph rows of ``scopes``: (chunk, score) by rowid.

        pgvector 0.8's iterative scan keeps walking the graph until enough rows pass the scope
        filter; rows come back roughly ordered (the caller sorts).
        """
        want = limit * 2
        while True:
            with conn.transaction():
                conn.execute(
                    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                    "set_config('hnsw.ef_search', %s, true)",
                    (str(min(max(want, 40), 1000)),),
                )
                rows = conn.execute(graph_sql(name), {"q": query, "s": scopes, "n": want}).fetchall()
            best: dict[int, tuple[int, float]] = {}
            for rowid, chunk, score in rows:
                if rowid not in best or score > best[rowid][1]:
                    best[rowid] = (int(chunk), float(score))
            if len(best) >= limit or len(rows) < want:
                return best
            want *= 4

    def vectors_of(self, model_id: str, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The first chunk's vector of each live one of ``memory_ids`` that has one (one indexed query).

        Read from ``embeddings`` as float32 bytes: parsing pgvector's text form cost ~8 ms a recall.
        """
        if not memory_ids:
            return {}
        rows = self._db.execute(
            "SELECT m.id, e.dim, substring(e.vectors FROM 1 FOR 4 * e.dim::integer) FROM memories m "
            "JOIN embeddings e ON e.memory_rowid = m.rowid AND e.model = ? "
            "WHERE m.id = ANY(?) AND m.deleted_at IS NULL",
            (model_id, list(memory_ids)),
        ).fetchall()
        return {r[0]: np.frombuffer(r[2], dtype=np.float32, count=int(r[1])) for r in rows}

    # -- derived indexes ------------------------------------------------

    def put_vectors(self, model_id: str, rows: Sequence[tuple[str, npt.NDArray[np.float32]]]) -> None:
        """Store each memory's chunk vectors in ``embeddings`` and derive its pgvector rows, at once."""
        if not rows:
            return
        matrices = {
            memory_id: np.ascontiguousarray(np.atleast_2d(vector), dtype=np.float32)
            for memory_id, vector in rows
        }
        dim = next(iter(matrices.values())).shape[1]
        tables = self._tables()
        with self._conn() as conn:
            name = self._make_table(conn, model_id, dim)
            tables = list(dict.fromkeys([*tables, name]))
            with conn.transaction():
                found = conn.execute(
                    "UPDATE memories SET embedding_model = %s WHERE id = ANY(%s) "
                    "RETURNING rowid, id, scope, deleted_at IS NULL",
                    (model_id, list(matrices)),
                ).fetchall()
                if not found:  # purged meanwhile
                    return
                found.sort()  # rows locked in one order: two writers never deadlock
                seqs = conn.execute(
                    "SELECT nextval('embeddings_seq_gen') FROM generate_series(1, %s)", (len(found),)
                ).fetchall()
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO embeddings (memory_rowid, model, dim, chunks, vectors, seq) "
                        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (memory_rowid) DO UPDATE SET "
                        "model = excluded.model, dim = excluded.dim, chunks = excluded.chunks, "
                        "vectors = excluded.vectors, seq = excluded.seq",
                        [
                            (rowid, model_id, dim, len(matrices[mid]), matrices[mid].tobytes(), seq[0])
                            for (rowid, mid, _, _), seq in zip(found, seqs, strict=True)
                        ],
                    )
                rowids = [r[0] for r in found]
                for table in tables:
                    conn.execute(f"DELETE FROM {table} WHERE memory_rowid = ANY(%s)", (rowids,))
                live = [(rowid, scope, matrices[mid]) for rowid, mid, scope, alive in found if alive]
                self._write_vectors(conn, name, model_id, live)
                conn.execute(
                    "UPDATE memory_vector_state SET derived_seq = greatest(derived_seq, %s) WHERE rowid = 1",
                    (max(s[0] for s in seqs),),
                )

    def _write_vectors(
        self, conn: Any, name: str, model_id: str, rows: Sequence[tuple[int, str, npt.NDArray[np.float32]]]
    ) -> None:
        """Rows of (memory rowid, scope, chunk vectors) into a vector table, by binary COPY; a scope
        that grows past ``graph_min`` moves into the graph."""
        if not rows:
            return
        touched = list({scope for _, scope, _ in rows})
        big = self._graph_scopes(conn, model_id, touched)
        with (
            conn.cursor() as cur,
            cur.copy(
                f"COPY {name} (memory_rowid, chunk, scope, graph, embedding) FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["int8", "int4", "text", "bool", "vector"])
            for rowid, scope, matrix in rows:
                for chunk, vector in enumerate(matrix):
                    copy.write_row((rowid, chunk, scope, scope in big, vector))
        small = [scope for scope in touched if scope not in big]
        if not small:
            return
        grown = conn.execute(
            f"SELECT scope FROM {name} WHERE NOT graph AND scope = ANY(%s) GROUP BY scope HAVING count(*) > %s",
            (small, self.graph_min),
        ).fetchall()
        for (scope,) in grown:
            conn.execute(
                "INSERT INTO memory_graph_scopes (model, scope) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (model_id, scope),
            )
            conn.execute(f"UPDATE {name} SET graph = true WHERE NOT graph AND scope = %s", (scope,))

    @staticmethod
    def _graph_scopes(conn: Any, model_id: str, scopes: Sequence[str]) -> set[str]:
        rows = conn.execute(
            "SELECT scope FROM memory_graph_scopes WHERE model = %s AND scope = ANY(%s)",
            (model_id, list(scopes)),
        ).fetchall()
        return {r[0] for r in rows}

    def fill_derived(self) -> int:
        """Derive the vector rows of ``embeddings`` rows above the mark (rows copied in); how many.

        See the module docstring: this is the rule a copy of the tables relies on. Rows copied
        with their ``rowid`` leave ``memories``' identity sequence behind; it is moved past them.
        """
        self._db.execute(
            "SELECT setval(s, top) FROM (SELECT pg_get_serial_sequence('memories', 'rowid')::regclass AS s, "
            "(SELECT max(rowid) FROM memories) AS top) x WHERE top > coalesce(pg_sequence_last_value(s), 0)"
        )
        mark = int(
            self._db.execute("SELECT derived_seq FROM memory_vector_state WHERE rowid = 1").fetchone()[0]
        )
        top = int(self._db.execute("SELECT coalesce(max(seq), 0) FROM embeddings").fetchone()[0])
        if top <= mark:
            return 0
        done = 0
        with self._conn() as conn:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADVISORY_FILL,))
                conn.execute(
                    "SELECT setval('embeddings_seq_gen', greatest(%s, "
                    "(SELECT last_value FROM embeddings_seq_gen)))",
                    (top,),
                )
            while True:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADVISORY_FILL,))
                    mark = conn.execute(
                        "SELECT derived_seq FROM memory_vector_state WHERE rowid = 1 FOR UPDATE"
                    ).fetchone()[0]
                    # FOR SHARE: a writer replacing one of these rows waits until its derived rows exist
                    rows = conn.execute(
                        "SELECT e.seq, e.memory_rowid, e.model, e.dim, e.chunks, e.vectors, m.scope, "
                        "m.deleted_at IS NULL FROM embeddings e JOIN memories m ON m.rowid = e.memory_rowid "
                        "WHERE e.seq > %s ORDER BY e.seq LIMIT %s FOR SHARE OF e",
                        (mark, FILL_BATCH),
                    ).fetchall()
                    if not rows:
                        break
                    by_model: dict[tuple[str, int], list[tuple[int, str, npt.NDArray[np.float32]]]] = {}
                    for _, rowid, model, dim, chunks, blob, scope, alive in rows:
                        if alive:
                            by_model.setdefault((model, int(dim)), []).append(
                                (rowid, scope, _matrix(blob, chunks))
                            )
                    for (model, dim), items in by_model.items():
                        name = self._make_table(conn, model, dim)
                        conn.execute(
                            f"DELETE FROM {name} WHERE memory_rowid = ANY(%s)", ([r[0] for r in items],)
                        )
                        self._write_vectors(conn, name, model, items)
                    conn.execute(
                        "UPDATE memory_vector_state SET derived_seq = greatest(derived_seq, %s) WHERE rowid = 1",
                        (rows[-1][0],),
                    )
                    done += len(rows)
        return done

    def unindexed(self, model_id: str, limit: int, after: int = 0) -> list[tuple[int, str, str, str | None]]:
        rows = self._db.execute(
            "SELECT rowid, id, content, context FROM memories WHERE rowid > ? AND deleted_at IS NULL "
            "AND (embedding_model IS NULL OR embedding_model != ?) ORDER BY rowid LIMIT ?",
            (after, model_id, limit),
        ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def count_unindexed(self, model_id: str) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model != ?) "
            "AND deleted_at IS NULL",
            (model_id,),
        ).fetchone()
        return int(row[0])

    def reset_index(self) -> None:
        tables = self._tables()
        with self._db.write() as tx:
            tx.execute("DELETE FROM embeddings")
            tx.execute("DELETE FROM keyword_snapshots")
            for name in tables:
                tx.execute(f"DELETE FROM {name}")
            tx.execute("UPDATE memories SET embedding_model = NULL, terms = ''")

    def rewrite_terms(self, rows: Sequence[tuple[str, str]]) -> None:
        """New keyword terms; the generated ``keywords`` column follows them."""
        with self._db.write() as tx:
            tx.executemany(
                "UPDATE memories SET terms = ? WHERE id = ?", [(terms, mid) for mid, terms in rows]
            )

    def stats(self) -> StoreStats:
        q = self._db.execute
        live = "WHERE deleted_at IS NULL"
        return StoreStats(
            memories=q(f"SELECT count(*) FROM memories {live}").fetchone()[0],
            deleted=q("SELECT count(*) FROM memories WHERE deleted_at IS NOT NULL").fetchone()[0],
            indexed=q(f"SELECT count(*) FROM memories {live} AND embedding_model IS NOT NULL").fetchone()[0],
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
            schema_version=db.PER_PACKAGE,
        )

    def close(self) -> None:
        self._db.close()
