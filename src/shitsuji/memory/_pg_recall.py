"""Recall's two searches on PostgreSQL in one round trip: keyword and vector candidates from one statement.

Why: a recall on PostgreSQL sent the keyword search, then the vector search as three statements
(the scopes' exact vectors, which scopes are under the graph, the ids) or, with a scope under the
graph, seven (BEGIN, the walk's settings, the walk, COMMIT besides) — eight round trips, each a wake-up
of the server process; on a busy machine every wake-up waits for a core. ``memory_recall_candidates``
runs the same searches inside the server and returns both candidate lists from one statement; the
engine fuses them in Python as before (``_recall.fuse``), so the ranking is the one two searches give.

The vector half is the store's ``vector_search`` moved into PL/pgSQL unchanged: each memory's best
chunk among the scopes' vectors outside the graph (compared one by one), the graph scopes (HNSW,
pgvector's iterative scan, ``hnsw.ef_search`` from twice the candidates asked for, asked again
for four times as many while a memory's chunks crowd the nearest rows), each memory's best chunk,
best first, live rows only. The keyword half is ``memory_bm25`` (``_pg_keywords``). The vector
table's name (``memory_vectors_<n>``: a number we made, never a user's text) is quoted by
``format('%I')``.

The migration also folds the two trigger functions that added and removed a statement's postings
(``memory_terms_added`` / ``memory_terms_removed``, the same text but for the sign) into one,
``memory_terms_moved``, that takes the sign as the trigger's argument.
"""

from __future__ import annotations

from typing import Final

from ._pg_keywords import POSTGRES_MOVED

#: ``memory_recall_candidates`` as migration 0013 made it (0019, ``_pg_halfvec``, walks the graph in half
#: precision: the same text with its walk's order replaced).
CANDIDATES_FUNCTION: Final = r"""
    CREATE FUNCTION memory_recall_candidates(
        q_scopes text[], q_terms text[], q_vector vector, v_table text, v_model text, n bigint,
        k1 double precision, b double precision
    ) RETURNS TABLE (signal text, memory_id text, score double precision, chunk bigint)
        LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
        want bigint := 2 * n;
        big text[];
        e_ids bigint[];
        e_chunks bigint[];
        e_scores float8[];
        g_ids bigint[];
        g_chunks bigint[];
        g_scores float8[];
        found bigint;
    BEGIN
        IF coalesce(cardinality(q_terms), 0) > 0 THEN
            RETURN QUERY
            SELECT 'keyword'::text, m.id, k.score, k.chunk FROM memory_bm25(q_scopes, q_terms, n, k1, b) k
            JOIN memories m ON m.rowid = k.memory_rowid ORDER BY round(k.score * 1e9) DESC, k.memory_rowid;
        END IF;
        IF q_vector IS NULL OR v_table IS NULL THEN
            RETURN;
        END IF;
        -- the scopes' vectors outside the graph, compared one by one (each memory's best chunk)
        EXECUTE format(
            'SELECT array_agg(x.memory_rowid), array_agg(x.chunk), array_agg(x.score) FROM ('
            'SELECT memory_rowid, chunk, score FROM ('
            'SELECT DISTINCT ON (v.memory_rowid) v.memory_rowid, v.chunk::bigint AS chunk, -(v.embedding <#> $1) AS score '
            'FROM %I v WHERE NOT v.graph AND v.scope = ANY($2) ORDER BY v.memory_rowid, v.embedding <#> $1'
            ') b ORDER BY score DESC, memory_rowid LIMIT $3) x', v_table)
        INTO e_ids, e_chunks, e_scores USING q_vector, q_scopes, n;
        SELECT array_agg(g.scope) INTO big FROM memory_graph_scopes g WHERE g.model = v_model AND g.scope = ANY(q_scopes);
        IF big IS NOT NULL THEN
            -- large scopes through the HNSW graph: pgvector's iterative scan walks on until enough rows
            -- pass the scope filter; asked for more while a memory's chunks crowd the nearest rows
            LOOP
                PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true),
                        set_config('hnsw.ef_search', least(greatest(want, 40), 1000)::text, true);
                EXECUTE format(
                    'SELECT array_agg(x.memory_rowid ORDER BY x.n), array_agg(x.chunk ORDER BY x.n), '
                    'array_agg(x.score ORDER BY x.n), count(*) FROM ('
                    'SELECT v.memory_rowid, v.chunk::bigint AS chunk, -(v.embedding <#> $1) AS score, '
                    'row_number() OVER () AS n FROM (SELECT * FROM %I v WHERE v.graph AND v.scope = ANY($2) '
                    'ORDER BY v.embedding <=> $1 LIMIT $3) v) x', v_table)
                INTO g_ids, g_chunks, g_scores, found USING q_vector, big, want;
                EXIT WHEN found < want OR (SELECT count(DISTINCT i) FROM unnest(g_ids) i) >= n;
                want := want * 4;
            END LOOP;
        END IF;
        RETURN QUERY
        WITH rows AS (
            SELECT x.id, x.chunk, x.score, 0 AS source, x.n FROM unnest(e_ids, e_chunks, e_scores) WITH ORDINALITY x(id, chunk, score, n)
            UNION ALL
            SELECT x.id, x.chunk, x.score, 1, x.n FROM unnest(g_ids, g_chunks, g_scores) WITH ORDINALITY x(id, chunk, score, n)
        ), best AS (
            -- each memory's best chunk; on equal scores the first seen (the exact one, then graph order)
            SELECT DISTINCT ON (rows.id) rows.id, rows.chunk, rows.score FROM rows
            ORDER BY rows.id, rows.score DESC, rows.source, rows.n
        ), top AS (
            SELECT best.* FROM best ORDER BY best.score DESC, best.id LIMIT n
        )
        SELECT 'vector'::text, m.id, top.score, top.chunk FROM top
        JOIN memories m ON m.rowid = top.id AND m.deleted_at IS NULL ORDER BY top.score DESC, top.id;
    END
    $$;
"""

#: Migration ``0013_kw25_recall_one_trip`` (PostgreSQL only): the triggers' twins made one, and the
#: function that returns both candidate lists.
POSTGRES_RECALL_ONE_TRIP: Final = (
    r"""
    DROP TRIGGER IF EXISTS memory_terms_added ON memories;
    DROP TRIGGER IF EXISTS memory_terms_removed ON memories;
    DROP FUNCTION IF EXISTS memory_terms_added();
    DROP FUNCTION IF EXISTS memory_terms_removed();
"""
    + POSTGRES_MOVED
    + CANDIDATES_FUNCTION
)

#: Both candidate lists: (signal, memory id, score, chunk), each list best first.
CANDIDATES_SQL: Final = (
    "SELECT signal, memory_id, score, chunk FROM memory_recall_candidates("
    "%s::text[], %s::text[], %s::vector, %s, %s, %s, %s, %s)"
)

#: ``CANDIDATES_SQL`` for a model this process has not seen vectors of: the model's vector table is looked
#: up inside the same statement (``memory_vector_models`` by its unique ``model``, the table passed only
#: when its ``dim`` is the query's), and the model's row, if any, comes first as a row of its own —
#: ``('model', rowid, dim, 0)`` — for the store to keep. A recall while the database holds no vector of
#: the model (a new household, ``bench scale``'s chat) asks again each time at no round trip of its own:
#: another process may write the model's first vector at any moment, and the next recall sees it.
#: Parameters: model, scopes, terms, query vector, its dimension, model, n, k1, b.
CANDIDATES_LOOKING_UP_SQL: Final = (
    "WITH model AS (SELECT rowid, dim FROM memory_vector_models WHERE model = %s) "
    "SELECT c.signal, c.memory_id, c.score, c.chunk, c.n FROM memory_recall_candidates("
    "%s::text[], %s::text[], %s::vector, (SELECT 'memory_vectors_' || model.rowid FROM model WHERE model.dim = %s), "
    "%s, %s, %s, %s) WITH ORDINALITY c(signal, memory_id, score, chunk, n) "
    "UNION ALL SELECT 'model', model.rowid::text, model.dim, 0, 0 FROM model ORDER BY n"
)
