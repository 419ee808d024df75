"""BM25 inside PostgreSQL: postings and term statistics kept by triggers, scored by one SQL function.

Why: scoring in Python meant fetching every row that holds a query term (at 50,000
memories in one scope a common word is in most of them: p95 181 ms). Here the database
keeps, for every live memory, one posting per (scope, term, memory, chunk) with the term's
frequency and the chunk's length, the number of chunks holding each term per scope, and
each scope's chunk and term totals; ``memory_bm25`` scores the postings of the query terms
in the searched scopes with exactly the formula of ``_keywords.bm25`` (k1 and b passed in
from there), and returns each memory's best chunk, best first.

The terms are the ones the engine already stores in ``memories.terms`` (``_text.terms``:
Japanese character bigrams and single kanji, stemmed English words; one line per chunk,
separated by single spaces — no term holds white space), so PostgreSQL never parses Japanese:
it splits stored text at line ends and spaces (``memory_postings_of``).
A change of tokenisation reaches both scorers through that one column.

Kept in step by statement-level triggers on ``memories`` (insert, update of terms, scope or
``deleted_at``, delete), in the transaction of the change: a forgotten row's postings go, a
restored one's come back, a superseded row stays searchable until it is forgotten (as in
SQLite). Rows copied in by any path (``shitsuji migrate``, COPY) are indexed by the same
triggers. The migration backfills existing rows and drops the GIN ``keywords`` column it
replaces.
"""

from __future__ import annotations

from typing import Final

#: One trigger function for the rows a statement adds (sign 1) and removes (sign -1), the sign the
#: trigger's argument; both triggers name their transition table ``moved``. Migration
#: ``0013_kw25_recall_one_trip`` puts it in place of the two functions that differed by the sign alone.
POSTGRES_MOVED: Final = r"""
    CREATE OR REPLACE FUNCTION memory_terms_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM memory_keyword_apply(array_agg(r.rowid), array_agg(r.scope), array_agg(r.terms),
            array_agg(r.chunk_count::bigint), array_agg(r.term_count::bigint), TG_ARGV[0]::bigint)
        FROM moved r WHERE r.deleted_at IS NULL;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER memory_terms_added AFTER INSERT ON memories REFERENCING NEW TABLE AS moved
        FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_moved('1');
    CREATE TRIGGER memory_terms_removed AFTER DELETE ON memories REFERENCING OLD TABLE AS moved
        FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_moved('-1');
"""

#: Migration text (PostgreSQL only). The tables carry a comment naming ``rowid`` so that the
#: migration layer does not add SQLite's ``rowid`` column: they are keyed by their terms. Keys
#: compare bytewise (``COLLATE "C"``: cheaper than a locale's rules, and equality is all BM25
#: needs); small counts are ``int4``, which the migration layer leaves as it is.
POSTGRES_POSTINGS: Final = (
    r"""
    CREATE TABLE memory_postings ( /* keyed by term, no rowid */
        scope TEXT COLLATE "C" NOT NULL, term TEXT COLLATE "C" NOT NULL, memory_rowid BIGINT NOT NULL,
        chunk int4 NOT NULL, tf int4 NOT NULL, len int4 NOT NULL,
        PRIMARY KEY (scope, term, memory_rowid, chunk) INCLUDE (tf, len)
    );
    CREATE TABLE memory_term_stats ( /* keyed by term, no rowid */
        scope TEXT COLLATE "C" NOT NULL, term TEXT COLLATE "C" NOT NULL, chunks BIGINT NOT NULL,
        PRIMARY KEY (scope, term)
    );
    CREATE TABLE memory_scope_stats ( /* keyed by scope, no rowid */
        scope TEXT PRIMARY KEY, chunks BIGINT NOT NULL, terms BIGINT NOT NULL
    );
    CREATE FUNCTION memory_postings_of(r_ids bigint[], r_scopes text[], r_terms text[])
        RETURNS TABLE (scope text, term text, memory_rowid bigint, chunk bigint, tf bigint, len bigint)
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        WITH words AS (
            SELECT r.id, r.scope, c.n - 1 AS chunk, t.term
            FROM unnest(r_ids, r_scopes, r_terms) AS r(id, scope, stored),
                 unnest(string_to_array(r.stored, chr(10))) WITH ORDINALITY AS c(line, n),
                 string_to_table(c.line, ' ') AS t(term)
            WHERE t.term <> ''
        ), lengths AS (
            SELECT words.id, words.chunk, count(*) AS len FROM words GROUP BY words.id, words.chunk
        )
        SELECT w.scope, w.term, w.id, w.chunk, w.tf, lengths.len
        FROM (SELECT words.scope, words.term, words.id, words.chunk, count(*) AS tf FROM words
              GROUP BY words.scope, words.term, words.id, words.chunk) w
        JOIN lengths ON lengths.id = w.id AND lengths.chunk = w.chunk
    $$;
    CREATE FUNCTION memory_keyword_apply(
        r_ids bigint[], r_scopes text[], r_terms text[], r_chunks bigint[], r_lengths bigint[], sign bigint
    ) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
        g_scopes text[];
        g_terms text[];
        g_counts bigint[];
    BEGIN
        IF coalesce(cardinality(r_ids), 0) = 0 THEN
            RETURN;
        END IF;
        IF sign > 0 THEN
            WITH p AS (
                SELECT * FROM memory_postings_of(r_ids, r_scopes, r_terms)
            ), added AS (
                INSERT INTO memory_postings (scope, term, memory_rowid, chunk, tf, len) SELECT * FROM p
            )
            INSERT INTO memory_term_stats AS s (scope, term, chunks)
            SELECT p.scope, p.term, count(*) FROM p GROUP BY p.scope, p.term
            ORDER BY p.scope COLLATE "C", p.term COLLATE "C"
            ON CONFLICT (scope, term) DO UPDATE SET chunks = s.chunks + excluded.chunks;
        ELSE
            -- the counts' rows are locked in key order, as the insert above takes them: two writers
            -- of the same words wait for each other instead of deadlocking
            WITH gone AS (
                DELETE FROM memory_postings x USING memory_postings_of(r_ids, r_scopes, r_terms) p
                WHERE x.scope = p.scope AND x.term = p.term AND x.memory_rowid = p.memory_rowid
                  AND x.chunk = p.chunk
                RETURNING x.scope, x.term
            )
            SELECT array_agg(d.scope ORDER BY d.scope, d.term), array_agg(d.term ORDER BY d.scope, d.term),
                   array_agg(d.n ORDER BY d.scope, d.term)
            INTO g_scopes, g_terms, g_counts
            FROM (SELECT gone.scope, gone.term, count(*) AS n FROM gone GROUP BY gone.scope, gone.term) d;
            PERFORM 1 FROM memory_term_stats s
            WHERE (s.scope, s.term) IN (SELECT * FROM unnest(g_scopes, g_terms))
            ORDER BY s.scope, s.term FOR UPDATE;
            UPDATE memory_term_stats s SET chunks = s.chunks - d.n
            FROM unnest(g_scopes, g_terms, g_counts) AS d(scope, term, n)
            WHERE s.scope = d.scope AND s.term = d.term;
        END IF;
        INSERT INTO memory_scope_stats AS s (scope, chunks, terms)
        SELECT r.scope, sign * sum(r.c), sign * sum(r.l)
        FROM unnest(r_scopes, r_chunks, r_lengths) AS r(scope, c, l) GROUP BY r.scope ORDER BY r.scope
        ON CONFLICT (scope) DO UPDATE SET chunks = s.chunks + excluded.chunks, terms = s.terms + excluded.terms;
    END
    $$;
    CREATE FUNCTION memory_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM memory_keyword_apply(array_agg(o.rowid), array_agg(o.scope), array_agg(o.terms),
            array_agg(o.chunk_count::bigint), array_agg(o.term_count::bigint), -1)
        FROM gone o JOIN came n ON n.rowid = o.rowid
        WHERE o.deleted_at IS NULL AND (n.deleted_at IS NOT NULL OR n.scope <> o.scope OR n.terms <> o.terms);
        PERFORM memory_keyword_apply(array_agg(n.rowid), array_agg(n.scope), array_agg(n.terms),
            array_agg(n.chunk_count::bigint), array_agg(n.term_count::bigint), 1)
        FROM came n JOIN gone o ON o.rowid = n.rowid
        WHERE n.deleted_at IS NULL AND (o.deleted_at IS NOT NULL OR n.scope <> o.scope OR n.terms <> o.terms);
        RETURN NULL;
    END
    $$;
"""
    + POSTGRES_MOVED
    + r"""
    CREATE TRIGGER memory_terms_changed AFTER UPDATE ON memories REFERENCING OLD TABLE AS gone NEW TABLE AS came
        FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_changed();
    SELECT memory_keyword_apply(array_agg(rowid), array_agg(scope), array_agg(terms),
        array_agg(chunk_count::bigint), array_agg(term_count::bigint), 1)
    FROM memories WHERE deleted_at IS NULL;
    ALTER TABLE memories DROP COLUMN keywords;
    CREATE FUNCTION memory_bm25(q_scopes text[], q_terms text[], k bigint, k1 double precision, b double precision)
        RETURNS TABLE (memory_rowid bigint, chunk bigint, score double precision)
        LANGUAGE sql STABLE AS $$
        WITH st AS (
            SELECT greatest(coalesce(sum(s.chunks), 0), 1)::float8 AS docs,
                   coalesce(sum(s.terms), 0)::float8 AS length
            FROM memory_scope_stats s WHERE s.scope = ANY(q_scopes)
        ), w AS (
            SELECT s.term, ln(1.0 + (st.docs - sum(s.chunks) + 0.5) / (sum(s.chunks) + 0.5)) AS idf,
                   k1 * (1.0 - b) AS fixed,
                   k1 * b / (CASE WHEN st.length > 0 THEN st.length / st.docs ELSE 1.0 END) AS per_term
            FROM memory_term_stats s, st
            WHERE s.scope = ANY(q_scopes) AND s.term = ANY(q_terms)
            GROUP BY s.term, st.docs, st.length HAVING sum(s.chunks) > 0
        ), c AS (
            SELECT p.memory_rowid, p.chunk,
                   sum(w.idf * p.tf * (k1 + 1.0) / (p.tf + w.fixed + w.per_term * p.len)) AS score
            FROM w JOIN memory_postings p ON p.term = w.term AND p.scope = ANY(q_scopes)
            GROUP BY p.memory_rowid, p.chunk
        ), best AS (
            SELECT DISTINCT ON (c.memory_rowid) c.memory_rowid, c.chunk, c.score
            FROM c ORDER BY c.memory_rowid, c.score DESC, c.chunk
        )
        SELECT best.memory_rowid, best.chunk, best.score FROM best
        ORDER BY round(best.score * 1e9) DESC, best.memory_rowid LIMIT k
    $$
"""
)
