-- Experiment (issue 25, kw25), NOT in the migrations: exact BM25 top-k with impact-ordered reading.
--
-- An index orders each (scope, term) list by (4 + len) / tf; a posting's BM25 part is
-- idf * (k1 + 1) / (1 + per_term * (c + len) / tf) with c = k1 (1 - b) / per_term, so a posting at or
-- past key e has a part <= the bound at e + least(0, c - 4), whatever the scope's average length is
-- now. memory_bm25 reads the first 8k postings of each list (threshold algorithm without random
-- access), scores the few memories still in doubt exactly, and stops when the k-th best score is
-- above what any unread memory can reach; else (or for lists without a rare term) it scores every
-- posting (memory_bm25_all: a bounded sort of the best 4k chunks instead of a full sort).
-- Results equal today's memory_bm25 on 320 queries of the 50,000-row scope (same memories, chunks,
-- order; scores to 1e-9). Measured in docs/benchmarks.md ("Issue 25: hybrid recall in one round
-- trip"): rare + common word queries 5-10x faster, two or more common words no faster, small
-- queries slower (PL/pgSQL overhead), one more index to keep on ingest — not adopted.
--
-- Load it into a scratch database:  psql -f scripts/pg_bm25_impact.sql  (it replaces memory_bm25).
CREATE INDEX IF NOT EXISTS memory_postings_impact ON memory_postings
    (scope, term, ((len + 4)::float8 / tf), memory_rowid, chunk) INCLUDE (tf, len);
CREATE OR REPLACE FUNCTION memory_bm25_all(
    q_scopes text[], w_terms text[], w_idf float8[], k bigint, k1 float8, fixed float8, per_term float8
) RETURNS TABLE (memory_rowid bigint, chunk bigint, score double precision)
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    cut bigint := 4 * k;
    ids bigint[];
    chunks bigint[];
    scores float8[];
    scored bigint;
BEGIN
    -- every posting of the terms scored; a memory's best chunk is its first in the order below, so
    -- the first k memories among the best 4k chunks are the k best (kept by a bounded sort)
    WITH c AS (
        SELECT p.memory_rowid, p.chunk,
               sum(w.idf * p.tf * (k1 + 1.0) / (p.tf + fixed + per_term * p.len)) AS score
        FROM unnest(w_terms, w_idf) w(term, idf)
        JOIN memory_postings p ON p.term = w.term AND p.scope = ANY(q_scopes)
        GROUP BY p.memory_rowid, p.chunk
    ), top AS (
        SELECT c.* FROM c ORDER BY round(c.score * 1e9) DESC, c.memory_rowid, c.score DESC, c.chunk LIMIT cut
    )
    SELECT array_agg(top.memory_rowid), array_agg(top.chunk::bigint), array_agg(top.score),
           (SELECT count(*) FROM c)
    INTO ids, chunks, scores, scored FROM top;
    IF scored <= cut OR (SELECT count(DISTINCT x) FROM unnest(ids) x) >= k THEN
        RETURN QUERY
        SELECT f.id, f.chunk, f.score FROM (
            SELECT DISTINCT ON (x.id) x.id, x.chunk, x.score, x.n
            FROM unnest(ids, chunks, scores) WITH ORDINALITY x(id, chunk, score, n) ORDER BY x.id, x.n
        ) f ORDER BY f.n LIMIT k;
        RETURN;
    END IF;
    RETURN QUERY
    WITH c AS (
        SELECT p.memory_rowid, p.chunk::bigint AS chunk,
               sum(w.idf * p.tf * (k1 + 1.0) / (p.tf + fixed + per_term * p.len)) AS score
        FROM unnest(w_terms, w_idf) w(term, idf)
        JOIN memory_postings p ON p.term = w.term AND p.scope = ANY(q_scopes)
        GROUP BY p.memory_rowid, p.chunk
    ), best AS (
        SELECT DISTINCT ON (c.memory_rowid) c.memory_rowid, c.chunk, c.score
        FROM c ORDER BY c.memory_rowid, c.score DESC, c.chunk
    )
    SELECT best.memory_rowid, best.chunk, best.score FROM best
    ORDER BY round(best.score * 1e9) DESC, best.memory_rowid LIMIT k;
END
$$;
CREATE OR REPLACE FUNCTION memory_bm25(q_scopes text[], q_terms text[], k bigint, k1 double precision, b double precision)
    RETURNS TABLE (memory_rowid bigint, chunk bigint, score double precision)
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    docs float8;
    total float8;
    fixed float8;
    per_term float8;
    shift float8;
    depth bigint := greatest(8 * k, 512);
    w_terms text[];
    w_idf float8[];
    l_scopes text[];
    l_terms text[];
    l_edges float8[];
    l_bounds float8[];
    unread float8;
    m_ids bigint[];
    m_low float8[];
    m_high float8[];
    floor0 float8;
    doubt bigint[];
    r_ids bigint[];
    r_exact float8[];
    top bigint[];
    settled boolean := false;
    longest float8;
    shortest float8;
    everything float8;
BEGIN
    SELECT greatest(coalesce(sum(s.chunks), 0), 1)::float8, coalesce(sum(s.terms), 0)::float8 INTO docs, total
    FROM memory_scope_stats s WHERE s.scope = ANY(q_scopes);
    fixed := k1 * (1.0 - b);
    per_term := k1 * b / (CASE WHEN total > 0 THEN total / docs ELSE 1.0 END);
    -- a posting's part is idf * (k1 + 1) / (1 + per_term * (c + len) / tf), c = fixed / per_term: the
    -- index orders a term's postings by (4 + len) / tf, so a posting at or past the key e has
    -- (c + len) / tf >= e + least(0, c - 4) and a part no larger than the bound of that
    shift := CASE WHEN per_term > 0 THEN least(0.0, fixed / per_term - 4.0) END;
    SELECT array_agg(x.term), array_agg(x.idf), max(x.held), min(x.held), sum(x.held)
    INTO w_terms, w_idf, longest, shortest, everything
    FROM (
        SELECT s.term, ln(1.0 + (docs - sum(s.chunks) + 0.5) / (sum(s.chunks) + 0.5)) AS idf, sum(s.chunks) AS held
        FROM memory_term_stats s WHERE s.scope = ANY(q_scopes) AND s.term = ANY(q_terms)
        GROUP BY s.term HAVING sum(s.chunks) > 0
    ) x;
    IF w_terms IS NULL THEN
        RETURN;
    END IF;
    -- few postings in all, or only common terms (whose scores are flat: reading the best of each list
    -- proves little): score them all; else read the best of each list while that is well short of it
    IF longest >= 8 * depth AND 4 * shortest <= longest THEN
        -- each (scope, term) list is read up to the key of its depth-th posting (the edge; none: all of it)
        SELECT array_agg(l.scope), array_agg(l.term), array_agg(f.edge),
               array_agg(CASE WHEN f.edge IS NULL THEN 0.0
                              WHEN shift IS NULL THEN l.idf * (k1 + 1.0)
                              ELSE l.idf * (k1 + 1.0) / (1.0 + per_term * greatest(f.edge + shift, 0.0)) END)
        INTO l_scopes, l_terms, l_edges, l_bounds
        FROM (SELECT s.scope, w.term, w.idf FROM unnest(q_scopes) s(scope), unnest(w_terms, w_idf) w(term, idf)) l
        LEFT JOIN LATERAL (
            SELECT (p.len + 4)::float8 / p.tf AS edge FROM memory_postings p
            WHERE p.scope = l.scope AND p.term = l.term
            ORDER BY (p.len + 4)::float8 / p.tf, p.memory_rowid, p.chunk OFFSET depth - 1 LIMIT 1
        ) f ON true;
        -- what no posting read can exceed, per term, and for a memory none of whose postings was read
        WITH t AS (
            SELECT x.term, max(x.bound) AS bound FROM unnest(l_terms, l_bounds) x(term, bound) GROUP BY x.term
        ) SELECT sum(t.bound) INTO unread FROM t;
        WITH l AS (
            SELECT * FROM unnest(l_scopes, l_terms, l_edges) l(scope, term, edge)
        ), t AS (
            SELECT x.term, w.idf, max(x.bound) AS bound
            FROM unnest(l_terms, l_bounds) x(term, bound) JOIN unnest(w_terms, w_idf) w(term, idf) USING (term)
            GROUP BY x.term, w.idf
        ), chunks AS (
            -- a chunk scores at least what was read of it, and at most that plus the bounds of the terms
            -- not read for it (exactly what was read when every term with a bound was)
            SELECT p.memory_rowid, p.chunk,
                   sum(t.idf * p.tf * (k1 + 1.0) / (p.tf + fixed + per_term * p.len)) AS low,
                   unread - sum(t.bound) AS rest,
                   count(*) FILTER (WHERE t.bound > 0) AS bounded
            FROM l JOIN t ON t.term = l.term
            JOIN LATERAL (
                SELECT * FROM memory_postings p WHERE p.scope = l.scope AND p.term = l.term
                  AND (p.len + 4)::float8 / p.tf < coalesce(l.edge, 'infinity')
            ) p ON true
            GROUP BY p.memory_rowid, p.chunk
        ), m AS (
            SELECT c.memory_rowid, max(c.low) AS low,
                   max(CASE WHEN c.bounded = (SELECT count(*) FROM t WHERE t.bound > 0) THEN c.low
                            ELSE c.low + c.rest END) AS high
            FROM chunks c GROUP BY c.memory_rowid
        )
        SELECT array_agg(m.memory_rowid), array_agg(m.low), array_agg(m.high),
               (SELECT x.low FROM m x ORDER BY x.low DESC OFFSET k - 1 LIMIT 1)
        INTO m_ids, m_low, m_high, floor0 FROM m;
        IF floor0 IS NULL AND EXISTS (SELECT 1 FROM unnest(l_edges) e WHERE e IS NOT NULL) THEN
            settled := false;  -- fewer than k memories read, and more to read
        ELSE
            -- the memories read in part that could still reach the k best are scored exactly
            SELECT array_agg(x.id) INTO doubt FROM unnest(m_ids, m_low, m_high) x(id, low, high)
            WHERE x.high > x.low AND x.high + 2e-9 >= coalesce(floor0, 0.0);
            IF coalesce(cardinality(doubt), 0) > 4 * k THEN
                settled := false;  -- cheaper to score every posting than to look so many up
            ELSE
            SELECT array_agg(e.memory_rowid), array_agg(e.score) INTO r_ids, r_exact FROM (
                SELECT c.memory_rowid, max(c.score) AS score FROM (
                    SELECT p.memory_rowid, p.chunk,
                           sum(w.idf * p.tf * (k1 + 1.0) / (p.tf + fixed + per_term * p.len)) AS score
                    FROM unnest(w_terms, w_idf) w(term, idf)
                    JOIN unnest(doubt) d(id) ON true
                    JOIN memory_postings p ON p.scope = ANY(q_scopes) AND p.term = w.term AND p.memory_rowid = d.id
                    GROUP BY p.memory_rowid, p.chunk
                ) c GROUP BY c.memory_rowid
            ) e;
            WITH known AS (
                SELECT x.id, coalesce(r.score, x.low) AS score
                FROM unnest(m_ids, m_low, m_high) x(id, low, high)
                LEFT JOIN unnest(r_ids, r_exact) r(id, score) ON r.id = x.id
                WHERE x.high = x.low OR r.id IS NOT NULL
            ), ranked AS (
                SELECT known.*, row_number() OVER (ORDER BY round(known.score * 1e9) DESC, known.id) AS n FROM known
            )
            SELECT array_agg(ranked.id) FILTER (WHERE ranked.n <= k),
                   NOT EXISTS (SELECT 1 FROM unnest(l_edges) e WHERE e IS NOT NULL)
                   OR (count(*) >= k AND unread + 2e-9 < min(ranked.score) FILTER (WHERE ranked.n <= k))
            INTO top, settled FROM ranked;
            END IF;
        END IF;
    END IF;
    IF NOT settled THEN
        RETURN QUERY SELECT * FROM memory_bm25_all(q_scopes, w_terms, w_idf, k, k1, fixed, per_term);
        RETURN;
    END IF;
    RETURN QUERY
    WITH c AS (
        SELECT p.memory_rowid, p.chunk::bigint AS chunk,
               sum(w.idf * p.tf * (k1 + 1.0) / (p.tf + fixed + per_term * p.len)) AS score
        FROM unnest(w_terms, w_idf) w(term, idf)
        JOIN memory_postings p ON p.term = w.term AND p.scope = ANY(q_scopes) AND p.memory_rowid = ANY(top)
        GROUP BY p.memory_rowid, p.chunk
    ), best AS (
        SELECT DISTINCT ON (c.memory_rowid) c.memory_rowid, c.chunk, c.score
        FROM c ORDER BY c.memory_rowid, c.score DESC, c.chunk
    )
    SELECT best.memory_rowid, best.chunk, best.score FROM best
    ORDER BY round(best.score * 1e9) DESC, best.memory_rowid LIMIT k;
END
$$;
