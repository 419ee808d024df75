"""The PostgreSQL + pgvector implementation of ``MemoryStore``: recall runs in the database.

Any number of processes on any number of machines share one database, so nothing is cached
in the process. The tables are the SQLite ones (``memories``, ``embeddings``) plus what
migration ``0011_postgres_recall`` derives:

- **Keywords**: BM25 is scored in SQL (``memory_bm25``) over postings and term statistics that
  triggers on ``memories`` keep in the writing transaction (``_pg_keywords``, migration
  ``0012_pgsearch_keyword_postings``), from the stored terms (the engine's Japanese bigrams and
  English stems, taken verbatim), with the document count and average length of the searched
  scopes — the scores an in-process SQLite index holding those scopes gives.
- **Vectors**: ``embeddings`` stays the source of truth (float32 blobs, as in SQLite). Each
  model's vectors are also kept, one row per chunk of a live memory, in a pgvector table
  ``memory_vectors_<n>`` (``n`` from ``memory_vector_models``, made when a model's first
  vectors arrive, its dimension taken from them). A scope is searched exactly (a btree on the
  scope, every vector compared, each memory's best chunk) until it holds more than
  ``GRAPH_MIN`` vectors; then it joins the graph: its rows get ``graph = true`` and sit under
  a partial HNSW index (cosine, over the vectors in half precision so that a large scope's graph
  fits ``shared_buffers``: ``_pg_halfvec``; rows scored exactly) walked with pgvector 0.8's iterative scan
  (``memory_graph_scopes`` lists such scopes). A million memories in 10,000 scopes never pay
  for graph upkeep on ingest; a 100,000-memory scope is not compared one by one. The derived
  rows are written in the transaction that writes ``embeddings``, removed when a memory is
  forgotten and written again when it is restored. A bulk load (``bulk()``: import, reindex)
  writes them outside the graph and moves them in once at its end (``_fold``); a graph built anew
  is built after the load returns, in the background (``_pg_graph_builds``: searched exactly meanwhile).
- **Recall** asks for both lists in one statement (``candidates``, ``_pg_recall``): one round trip
  where the two searches took four (small scopes) to eight (a scope under the graph).

**Derived-row rule** (what a copy of the tables relies on): opening a store derives the
vector rows of every live ``embeddings`` row whose ``seq`` is above
``memory_vector_state.derived_seq`` (0 in a new database: all of them), then raises that
mark; it also moves the ``embeddings_seq_gen`` sequence past the highest ``seq``. So rows
copied into ``memories`` and ``embeddings`` by column name are searchable once a store opens
the database; the generated columns (``chunk_count``, ``term_count``), the keyword tables
``memory_postings``, ``memory_term_stats``, ``memory_scope_slots`` (the triggers fill them as
rows arrive; ``memory_scope_stats`` is a view over the last) and the tables ``memory_vector_models``, ``memory_vector_state``,
``memory_graph_scopes``, ``memory_vector_inline``, ``memory_vector_gather``, ``memory_term_fold_due`` and
``memory_vectors_<n>`` are derived: never copy them. Opening a store also moves ``memories``'
identity sequence past the highest ``rowid`` copied in.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from psycopg.pq import TransactionStatus

from .. import store as db
from ..errors import StoreError
from ._keywords import K1, B
from ._pg_graph_builds import WATCH_S, GraphBuilds, build_progress, upkeep_due
from ._pg_halfvec import graph_sql, hnsw_sql
from ._pg_ingest import (
    broken_graphs,
    build_lock,
    build_workers,
    memory_mb,
    write_embeddings,
)
from ._pg_inline import INLINE_WITH
from ._pg_recall import CANDIDATES_LOOKING_UP_SQL, CANDIDATES_SQL
from ._pg_rows import ROWS_WITH_VECTORS_SQL, first_vector, rows_from_table_sql
from ._pg_term_deltas import COMPACT_MAX, FOLD_ROWS, FOLD_SCOPES_SQL
from ._pg_term_upkeep import note_statements
from ._records import Memory
from ._rows import COLUMNS, MemoryRows, chunk_vectors, to_memory, values
from ._slots import Asked, Match, Ranked, Terms

T = TypeVar("T")

#: A scope with more chunk vectors than this joins the HNSW graph (``graph`` rows, under a
#: partial HNSW index); smaller scopes are compared exactly, every vector, through a btree on
#: the scope: faster than walking a graph whose nearest neighbours are mostly in other scopes,
#: exact, and no graph upkeep on ingest (an HNSW insert costs ~2 ms; a million memories in
#: 10,000 scopes never need the graph).
GRAPH_MIN = 10_000
#: A bulk load that moves at least this many rows into the graph, and no fewer than the graph
#: holds already, builds the HNSW index anew instead of inserting row by row (``_fold``).
REBUILD_MIN = 2_000
FILL_BATCH = 5_000
_ADVISORY_FILL = 0x5348_4956  # one process derives copied rows at a time

#: Each memory's best chunk by BM25, best first (``_pg_keywords.memory_bm25``), with its id.
KEYWORD_SQL = (
    "SELECT m.id, b.score, b.chunk FROM memory_bm25(?, ?, ?, ?, ?) b "
    "JOIN memories m ON m.rowid = b.memory_rowid ORDER BY round(b.score * 1e9) DESC, b.memory_rowid"
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


def _searchable(terms: Sequence[str]) -> list[str]:
    """The distinct terms a posting can hold (stored terms are split at white space)."""
    return [t for t in dict.fromkeys(terms) if t and not any(c.isspace() for c in t)]


class _VectorTx:
    """A write transaction on a pooled connection that speaks pgvector: ``Tx`` for the row layer,
    and the connection itself for what only PostgreSQL has (COPY)."""

    __slots__ = ("conn",)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: db.Params = ()) -> db.Rows:
        cursor: db.Rows = self.conn.execute(db.to_postgres(sql), tuple(params))
        return cursor

    def executemany(self, sql: str, rows: Sequence[db.Params]) -> None:
        if rows:
            with self.conn.cursor() as cur:
                cur.executemany(db.to_postgres(sql), rows)


class PostgresMemoryStore(MemoryRows):
    """Memory rows in a PostgreSQL database with pgvector, shared by any number of processes."""

    def __init__(
        self,
        database: db.Database,
        *,
        graph_min: int = GRAPH_MIN,
        rebuild_min: int = REBUILD_MIN,
        fold_rows: int = FOLD_ROWS,
    ) -> None:
        if not isinstance(database, db.PostgresDatabase):
            raise StoreError(f"{database.where} is not a PostgreSQL database: open it with open_store")
        super().__init__(database)
        self._pg = database
        self.graph_min = graph_min
        self.rebuild_min = rebuild_min
        self.fold_rows = fold_rows  # a bulk load's end folds pairs of more term-count rows than this
        self._models: dict[str, tuple[int, int]] = {}  # model -> (table number, dim)
        self._bulk = threading.local()  # this thread's bulk load: (model, scope) pairs written
        self._builds = GraphBuilds(database.url, hnsw_sql)
        self.fill_derived()
        with self._conn() as conn:
            # a graph whose build did not finish (or never ran), a build's setting left by a process cut off
            # from its build: seen now, seen to by the background run at this process's first write (or
            # ``build_graphs``) — never by opening alone, so a read-only command starts no build
            self._upkeep_due = upkeep_due(conn)

    def _start_upkeep(self) -> None:
        """Start the background run that opening found due (once per store)."""
        if self._upkeep_due:
            self._upkeep_due = False
            self._builds.start()

    @contextmanager
    def write(self) -> Iterator[_VectorTx]:
        """The database's write transaction (a savepoint in this thread's open one), on its connection
        made to speak pgvector: a caller's transaction (the engine's audit row) takes it in. The first one
        starts the graph upkeep opening found due (a thread of its own: nothing here waits for it)."""
        self._start_upkeep()
        with self._db.write(), self._conn() as conn:
            if getattr(self._bulk, "written", None) is not None:
                # inside a bulk load a commit does not wait for its WAL to reach the disk (a crash may
                # lose the last batches, never half of one); the load's end makes them all durable
                conn.execute("SET LOCAL synchronous_commit = off")
            yield _VectorTx(conn)

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None:
        """Rows by one COPY: the keyword triggers then run once for the batch, not once a row."""
        if not rows:
            return
        statements = getattr(self._bulk, "statements", None)
        due = False
        with self.write() as tx:
            with (
                tx.conn.cursor() as cur,
                cur.copy(f"COPY memories ({', '.join(COLUMNS)}, terms) FROM STDIN") as copy,
            ):
                for memory, terms in rows:
                    copy.write_row((*values(memory), terms))
            if statements is None and len(rows) > COMPACT_MAX:  # folds nothing: noted for the upkeep
                due = note_statements(tx.conn, dict.fromkeys({memory.scope for memory, _ in rows}, 1))
        if statements is not None:  # a bulk load: its statements a scope (each added a row a term there)
            statements.update(set(memory.scope for memory, _ in rows))
        if due:
            self._builds.start()

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """A bulk load: vectors written inside stay outside the HNSW graph (their scopes searched
        exactly meanwhile, so recall is right throughout); on leaving, the large scopes' rows join
        the graph at once, the index built anew when they outnumber the rows already in it — after
        this returns, in the background (see ``_fold``). Nested calls fold once, at the outermost. Commits inside do not wait for the disk
        (``synchronous_commit = off``); leaving waits once for all of them (``_durable``). Leaving also
        folds the term counts' rows the load's batches left in its scopes (``_fold_terms``)."""
        outer = getattr(self._bulk, "written", None) is None
        if outer:
            self._bulk.written, self._bulk.statements = set(), Counter()
        try:
            yield
        finally:
            if outer:
                written: set[tuple[str, str]] = self._bulk.written
                statements: Counter[str] = self._bulk.statements
                self._bulk.written = self._bulk.statements = None
                self._fold_terms(sorted(scope for scope, n in statements.items() if n > self.fold_rows))
                for model_id in sorted({model for model, _ in written}):
                    self._fold(model_id, sorted(scope for model, scope in written if model == model_id))
                if self._durable(statements):
                    self._builds.start()  # a scope many loads filled is due: the upkeep folds it

    def _fold_terms(self, scopes: list[str]) -> None:
        """Each (scope, term) pair of ``scopes`` — those more than ``fold_rows`` of the load's statements
        wrote — held in more than ``fold_rows`` rows (one per bulk statement that touched it) folded into
        one, so that a keyword search sums few rows a pair (``_pg_term_deltas.FOLD_SCOPES_SQL``: beside
        concurrent writers, nothing waited on, no count lost). Scopes fewer statements wrote are not read
        here (finding their pairs cost a load into 2,000 small scopes 1.2-1.7 s for nothing to fold): the
        load's end notes every scope's statements (``_durable``) and the background upkeep folds a scope
        many such loads filled (``_pg_term_upkeep``)."""
        if scopes:
            with self.write() as tx:
                tx.conn.execute(FOLD_SCOPES_SQL, {"scopes": scopes, "rows": self.fold_rows})

    def _durable(self, statements: Counter[str]) -> bool:
        """Wait until every commit of this bulk load is on disk: a commit that waits for its WAL (a
        write, so it has a commit record) flushes all the WAL before it, the load's included. It waits
        even where the app's sessions commit without waiting (``SHITSUJI_SYNCHRONOUS_COMMIT=off``, the
        default): an import that says it is done is on disk. The same transaction notes the load's
        ``statements`` a scope for the term upkeep (``_pg_term_upkeep``: a commit of its own cost a load
        of one statement ~12 ms at rest); whether a scope is due now."""
        with self.write() as tx:
            tx.execute("SET LOCAL synchronous_commit = on")
            tx.execute("UPDATE memory_vector_state SET derived_seq = derived_seq WHERE rowid = 1")
            return note_statements(tx.conn, statements)

    # -- index upkeep after row changes (see MemoryRows) -----------------

    def _liveness_changed(self, tx: db.Tx, memory_id: str, rowid: int, scope: str, *, alive: bool) -> None:
        """A forgotten row's vector rows go; a restored one's come back from ``embeddings``."""
        assert isinstance(tx, _VectorTx)
        for name in self._tables(tx):
            tx.execute(f"DELETE FROM {name} WHERE memory_rowid = ?", (rowid,))
        if not alive:
            return
        found = tx.execute(
            "SELECT model, dim, chunks, vectors FROM embeddings WHERE memory_rowid = ?", (rowid,)
        ).fetchone()
        if found is not None:
            name = self._make_table(tx.conn, found[0], int(found[1]))
            self._write_vectors(tx.conn, name, found[0], [(rowid, scope, chunk_vectors(found[3], found[2]))])

    def _index_reset(self, tx: db.Tx) -> None:
        for name in self._tables(tx):
            tx.execute(f"DELETE FROM {name}")

    # -- plumbing ---------------------------------------------------------

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """A pooled connection that speaks pgvector (numpy arrays in, numpy arrays out); inside this
        thread's write, that transaction's connection."""
        with self._pg.connection() as conn:
            self._register(conn)
            yield conn

    def _reading(self, work: Callable[[Any], T]) -> T:
        """``work(conn)`` for a search, which may read a streaming replica (``store._replica``)."""

        def registered(conn: Any) -> T:
            self._register(conn)
            return work(conn)

        return self._pg.read_with(registered)

    def _register(self, conn: Any) -> None:
        if conn in _registered:
            return
        from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

        register_vector(conn)
        db.adapters_changed(conn)  # the statements of the store layer on it see the vector types too
        _registered[conn] = True

    def _table(self, model_id: str, conn: Any = None) -> tuple[str, int] | None:
        """(table, dim) of ``model_id``'s vectors, if the model has any (read on ``conn`` if given).

        Read once per process and model, then kept: nothing else in this store is cached, and this may be
        because a ``memory_vector_models`` row never changes once committed — ``model`` is unique, its
        ``dim`` fixed (a model with other dimensions is refused), no path deletes a row, and a reindex
        into another model adds that model's row beside it — so another process's reindex, import or
        forget cannot make the kept pair wrong. Only a row written in a transaction that may still roll
        back is not kept (``_make_table``). A model without vectors is not kept either: another process
        may write its first at any time, so the read is repeated — by recall inside its candidates
        statement (``CANDIDATES_LOOKING_UP_SQL``: no round trip of its own while the database holds no
        vector of the turn's model, as a new one does), here by a statement of its own."""
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

    def _tables(self, tx: db.Tx | None = None) -> list[str]:
        rows = (tx or self._db).execute("SELECT rowid FROM memory_vector_models").fetchall()
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
                        f"embedding vector({int(dim)}) NOT NULL, PRIMARY KEY (memory_rowid, chunk)) "
                        f"WITH ({INLINE_WITH})"  # each vector in its row, not in TOAST (``_pg_inline``)
                    )
                    conn.execute(f"CREATE INDEX {name}_scope ON {name} (scope) WHERE NOT graph")
                    conn.execute(hnsw_sql(name, int(dim)))
            # not kept in ``_models`` yet: made in the caller's transaction, it may roll back with it
            found = f"memory_vectors_{int(row[0])}", int(row[1])
        name, known = found
        if known != dim:
            raise StoreError(
                f"model {model_id} has {known}-dimensional vectors here, not {dim}: run `shitsuji reindex`"
            )
        return name

    # -- search -----------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        """BM25 scored in the database over its postings, with the searched scopes' statistics."""
        words = _searchable(terms)
        scopes = list(dict.fromkeys(scopes))
        if not words or not scopes or limit <= 0:
            return []

        def search(conn: Any) -> list[Match]:
            rows = conn.execute(db.to_postgres(KEYWORD_SQL), (scopes, words, limit, K1, B)).fetchall()
            return [Match(memory_id, float(score), int(chunk)) for memory_id, score, chunk in rows]

        return self._reading(search)

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[Match]:
        """Best chunk per live row by cosine: exactly within small scopes, through the graph in large ones."""
        found = self._table(model_id)
        scopes = list(dict.fromkeys(scopes))
        if found is None or found[1] != len(vector) or not scopes or limit <= 0:
            return []
        name, dim = found
        query = np.ascontiguousarray(vector, dtype=np.float32)

        def search(conn: Any) -> list[Match]:
            params = {"q": query, "s": scopes, "n": limit}
            best = {
                int(r[0]): (int(r[1]), float(r[2])) for r in conn.execute(exact_sql(name), params).fetchall()
            }
            big = self._graph_scopes(conn, model_id, scopes)
            if big:
                for rowid, (chunk, score) in self._graph_search(
                    conn, name, dim, query, sorted(big), limit
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

        return self._reading(search)

    def candidates(
        self, terms: Terms, model_id: str, vector: Asked, scopes: Sequence[str], limit: int
    ) -> Ranked:
        """Both searches in one statement (``_pg_recall``): the lists ``keyword_search`` and
        ``vector_search`` give, from one round trip instead of four (small scopes) to eight (graph)."""
        ranked: Ranked = {}
        words: list[str] = []
        if terms is not None:
            ranked["keyword"] = []
            words = _searchable(terms)
        table = None
        known = None
        if vector is not None:
            ranked["vector"] = []
            known = self._models.get(model_id)  # unknown: looked up in the statement itself, below
            table = f"memory_vectors_{known[0]}" if known is not None and known[1] == len(vector) else None
        looking_up = vector is not None and known is None
        scopes = list(dict.fromkeys(scopes))
        if not scopes or limit <= 0 or (not words and table is None and not looking_up):
            return ranked
        query = None if table is None and not looking_up else np.ascontiguousarray(vector, dtype=np.float32)
        sql: str = CANDIDATES_SQL
        params: tuple[Any, ...] = (scopes, words, query, table, model_id, limit, K1, B)
        if looking_up and query is not None:
            sql = CANDIDATES_LOOKING_UP_SQL
            params = (model_id, scopes, words, query, len(query), model_id, limit, K1, B)

        def search(conn: Any) -> list[tuple[Any, ...]]:
            # the store layer's kept cursor, with the reads sent ahead on this connection (the household's
            # counts, ``Database.ahead``) in the same round trip
            rows: list[tuple[Any, ...]] = db.fetch_on(conn, sql, params).fetchall()
            return rows

        for signal, memory_id, score, chunk, *_ in self._reading(search):
            if (
                signal == "model"
            ):  # a committed row (read outside any transaction of ours): kept as ``_table`` keeps it
                self._models[model_id] = (int(memory_id), int(score))
            else:
                ranked[signal].append(Match(memory_id, float(score), int(chunk)))
        return ranked

    def _graph_search(
        self, conn: Any, name: str, dim: int, query: npt.NDArray[np.float32], scopes: list[str], limit: int
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
                rows = conn.execute(graph_sql(name, dim), {"q": query, "s": scopes, "n": want}).fetchall()
            best: dict[int, tuple[int, float]] = {}
            for rowid, chunk, score in rows:
                if rowid not in best or score > best[rowid][1]:
                    best[rowid] = (int(chunk), float(score))
            if len(best) >= limit or len(rows) < want:
                return best
            want *= 4

    def memories_with_vectors(
        self, memory_ids: Sequence[str], model_id: str | None
    ) -> tuple[dict[str, Memory], dict[str, npt.NDArray[np.float32]]]:
        """Recall's candidates' rows (live or not, as ``get_many``) and the first chunk's vector of the
        live ones in ``model_id`` (as ``vectors_of``), in one statement; with no ``model_id`` the join
        matches nothing and only the rows come back."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}, {}
        # the first chunks from the model's vector table, whose pages the search just read (``_pg_rows``);
        # a model not looked up yet (no search before) from ``embeddings``, with no statement to look it up
        known = None if model_id is None else self._models.get(model_id)
        sql = ROWS_WITH_VECTORS_SQL if known is None else rows_from_table_sql(f"memory_vectors_{known[0]}")
        rows = self._db.execute(sql, (model_id, ids)).fetchall()
        memories: dict[str, Memory] = {}
        vectors: dict[str, npt.NDArray[np.float32]] = {}
        for row in rows:
            memory = to_memory(row[: len(COLUMNS)])
            memories[memory.id] = memory
            if (first := first_vector(row)) is not None:
                vectors[memory.id] = first
        return memories, vectors

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
        with self._conn() as conn:  # its own transaction, unless this thread's write is open
            name = self._make_table(conn, model_id, dim)
        tables = list(dict.fromkeys([*self._tables(), name]))
        with self.write() as tx:
            conn = tx.conn
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
            write_embeddings(
                conn,
                model_id,
                dim,
                [
                    (rowid, len(matrices[mid]), matrices[mid].tobytes(), seq[0])
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
        if getattr(self._bulk, "written", None) is None:  # a bulk load's rows are looked at after it
            self._builds.wrote(len(found))  # a watching process may look for scopes to gather now

    def _write_vectors(
        self, conn: Any, name: str, model_id: str, rows: Sequence[tuple[int, str, npt.NDArray[np.float32]]]
    ) -> None:
        """Rows of (memory rowid, scope, chunk vectors) into a vector table, by binary COPY; a scope
        that grows past ``graph_min`` moves into the graph."""
        if not rows:
            return
        touched = list({scope for _, scope, _ in rows})
        written = getattr(self._bulk, "written", None)
        if written is not None:  # a bulk load: the graph is joined once, when it ends
            written.update((model_id, scope) for scope in touched)
            big: set[str] = set()
        else:
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
        if not small or written is not None:
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

    def _fold(self, model_id: str, scopes: list[str]) -> None:
        """Move the rows a bulk load left outside the graph into it, for the scopes that belong there
        (already in the graph, or holding more than ``graph_min`` vectors now).

        Building an HNSW index over many rows at once is several times faster than inserting
        them one by one (~2 ms each): when the rows to move are at least ``rebuild_min`` and no
        fewer than the graph's (or the graph is pending), the index is dropped and the rows moved in
        one short transaction; the index is built again over all graph rows after the load returns, on
        a background thread (``_pg_graph_builds``): until then the graph is pending and its scopes are
        searched exactly. Inside a caller's transaction (no concurrent build there) it is built in that
        transaction.
        """
        found = self._table(model_id)
        if found is None:
            return
        name, dim = found
        with self._conn() as conn:
            if conn.info.transaction_status != TransactionStatus.IDLE:
                with conn.transaction():
                    self._move(conn, name, dim, model_id, scopes, build=True)
                return
            if not self._moving(conn, name, model_id, scopes)[0]:
                return  # nothing joins the graph (small scopes): a build under way goes on untouched
            self._builds.cancel()  # this process's build under way: the move drops its index again
            with build_lock(conn), conn.transaction():
                self._move(conn, name, dim, model_id, scopes, build=False)
        if self.graphs_pending():
            self._builds.start()

    def _moving(self, conn: Any, name: str, model_id: str, scopes: list[str]) -> tuple[list[str], int]:
        """The scopes whose rows outside the graph belong in it (already in the graph, or grown past
        ``graph_min``), and how many rows they hold there."""
        big = self._graph_scopes(conn, model_id, scopes)
        waiting = conn.execute(
            f"SELECT scope, count(*) FROM {name} WHERE NOT graph AND scope = ANY(%s) GROUP BY scope",
            (scopes,),
        ).fetchall()
        moving = sorted(scope for scope, n in waiting if scope in big or n > self.graph_min)
        return moving, sum(int(n) for scope, n in waiting if scope in moving)

    def _move(self, conn: Any, name: str, dim: int, model_id: str, scopes: list[str], *, build: bool) -> int:
        """``_fold``'s transaction: the rows moved into the graph, and the index dropped when it is to be
        built anew (always when the graph is pending: its index is dropped or invalid anyway) — then built
        here if ``build``; how many rows moved if it was dropped and not built (the background build's)."""
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADVISORY_FILL,))
        moving, rows = self._moving(conn, name, model_id, scopes)
        if not moving:
            return 0
        # the graph's rows counted up to one more than the move (a big graph is not read whole)
        rebuild = name in broken_graphs(conn) or (
            rows >= self.rebuild_min
            and rows
            >= int(
                conn.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM {name} WHERE graph LIMIT %s) x", (rows + 1,)
                ).fetchone()[0]
            )
        )
        if rebuild:
            conn.execute(f"DROP INDEX IF EXISTS {name}_hnsw")
        for scope in moving:
            conn.execute(
                "INSERT INTO memory_graph_scopes (model, scope) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (model_id, scope),
            )
        conn.execute(f"UPDATE {name} SET graph = true WHERE NOT graph AND scope = ANY(%s)", (moving,))
        if not rebuild:
            return 0
        if not build:
            return rows
        conn.execute(f"SET LOCAL maintenance_work_mem = '{memory_mb(2 * rows, dim)}MB'")
        workers = build_workers(conn, name)
        conn.execute(hnsw_sql(name, dim))
        if workers:
            conn.execute(f"ALTER TABLE {name} RESET (parallel_workers)")
        return 0

    def graphs_pending(self) -> bool:
        """Whether a vector table's graph index is missing or invalid (its scopes searched exactly
        until the background build, ``_pg_graph_builds``, makes it)."""
        with self._conn() as conn:
            return bool(broken_graphs(conn))

    def upkeep_pending(self) -> bool:
        """Whether background upkeep waits: a pending graph, or what opening found due (vector rows to
        rewrite or gather, term counts to fold, a setting a killed run left) and no write has started yet."""
        return self._upkeep_due or self.graphs_pending()

    def wait_for_graphs(self, timeout: float | None = None) -> bool:
        """Wait for this process's background graph build, if one runs; whether none runs now."""
        return self._builds.wait(timeout)

    def build_graphs(self) -> None:
        """Build the pending graphs on this process's background thread (``wait_for_graphs`` to wait),
        reset a build's setting left over and rewrite the vector rows stored before ``_pg_inline``'s
        migration (``shitsuji serve`` at its start, ``reindex --graph-only``)."""
        if self._upkeep_due or self.graphs_pending():
            self._upkeep_due = False
            self._builds.start()

    def watch_upkeep(self, every: float = WATCH_S) -> None:
        """Keep looking, while this process runs, for upkeep that became due and run it in the
        background (``GraphBuilds.watch``: one statement every ``every`` seconds, sooner after this
        process's large writes) — ``shitsuji serve``, a process that runs for weeks."""
        self._builds.watch(every)

    def close(self) -> None:
        """Stop ``watch_upkeep``'s looks (a run under way goes on; the process's exit cancels it)."""
        self._builds.stop_watching()
        super().close()

    def cancel_graphs(self, timeout: float = 10.0) -> bool:
        """Cancel this process's build under way: the graph stays pending (searched exactly). Waits at
        most ``timeout`` seconds for it to stop; whether it has."""
        return self._builds.cancel(timeout)

    def graph_progress(self) -> str | None:
        """The graph build under way on this database (any process's), in words; None when none is."""
        with self._conn() as conn:
            return build_progress(conn)

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
                                (rowid, scope, chunk_vectors(blob, chunks))
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
