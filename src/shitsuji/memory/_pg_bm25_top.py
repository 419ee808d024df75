"""Keyword top-k on PostgreSQL without sorting every chunk scored: the best few hundred, then each memory's best.

Why: at 50,000 memories in one scope a query of two common words scores ~27,000 chunks, and
``memory_bm25`` (``_pg_keywords``) then sorted all of them by memory for ``DISTINCT ON`` (each
memory's best chunk) before the final top-k: that sort and the unique pass over its output were
half the statement (EXPLAIN ANALYZE, docs/benchmarks.md "Issue 25, kw25c"); reading the postings
and summing the chunks' scores were a quarter each.

Now the chunks' scores are summed as before (one hash aggregate), and only the ``depth`` best
chunks (``4 * k``, at least 64) are kept, by a bounded top-N heap, in the final order:
``round(score * 1e9)`` descending, then memory rowid, then exact score descending, then chunk. In
that order a memory's first chunk is its best one (the highest score, the lowest chunk among equal
scores — the chunk ``DISTINCT ON`` kept), and the memories come in the final order of the list by
their best chunks. So the first ``k`` distinct memories among the kept chunks *are* the top-k,
chunks and scores included — whenever they number ``k``, or every chunk scored was kept. Otherwise
(memories of many chunks crowding the head) every chunk is ranked as before
(``memory_bm25_scan``, the former function's text under a new name). Exact either way:
``tests/test_pg_bm25_top.py`` checks it against the scan on flat, tied, multi-chunk data.

Migration ``0017_kw25c_bm25_top`` (PostgreSQL only). ``memory_bm25`` keeps its signature, so
``memory_recall_candidates`` and ``keyword_search`` call it unchanged; it is PL/pgSQL now, and says
``ROWS 60`` (a function in ``FROM`` is otherwise guessed at 1,000 rows, and the planner joined its
rows to every memory by hash — kw25b's finding). Its statement is planned for each call's terms
(``plan_cache_mode = force_custom_plan``): PL/pgSQL's cached generic plan, made for any terms, took
13.5 ms for two rare words the former inlined function answered in 8.9 (custom: 6.9).
"""

from __future__ import annotations

from typing import Final

from ._pg_keywords import POSTGRES_POSTINGS


def _scan() -> str:
    """``memory_bm25`` as migration 0012 made it, named ``memory_bm25_scan``."""
    start = POSTGRES_POSTINGS.index("CREATE FUNCTION memory_bm25(")
    end = POSTGRES_POSTINGS.index("$$", POSTGRES_POSTINGS.index("AS $$", start) + 5) + len("$$")
    text = POSTGRES_POSTINGS[start:end]
    if "DISTINCT ON" not in text:  # an applied migration's text never changes: a programming error
        raise RuntimeError("memory_bm25 of 0012 is not the one 0017 renames")
    return text.replace("CREATE FUNCTION memory_bm25(", "CREATE FUNCTION memory_bm25_scan(", 1)


def _scored() -> str:
    """The statistics and the chunks' sums of ``memory_bm25``'s text (``WITH st ... c AS (...``), unchanged."""
    text = _scan()
    return text[text.index("WITH st AS (") : text.index("), best AS (")]


#: Migration text (PostgreSQL only).
POSTGRES_BM25_TOP: Final = (
    _scan()
    + r""";
    CREATE OR REPLACE FUNCTION memory_bm25(
        q_scopes text[], q_terms text[], k bigint, k1 double precision, b double precision
    ) RETURNS TABLE (memory_rowid bigint, chunk bigint, score double precision)
        LANGUAGE plpgsql STABLE ROWS 60 SET plan_cache_mode = force_custom_plan AS $$
    #variable_conflict use_column
    DECLARE
        depth bigint := greatest(4 * k, 64);
        ids bigint[];
        parts bigint[];
        scores float8[];
        kept bigint;
    BEGIN
        """
    + _scored()
    + r"""), head AS (
            -- the final order; a memory's first chunk in it is its best (see the module's docstring)
            SELECT t.memory_rowid, t.chunk, t.score,
                   row_number() OVER (ORDER BY round(t.score * 1e9) DESC, t.memory_rowid, t.score DESC, t.chunk) AS n
            FROM (
                SELECT c.* FROM c ORDER BY round(c.score * 1e9) DESC, c.memory_rowid, c.score DESC, c.chunk
                LIMIT depth
            ) t
        ), firsts AS (
            SELECT DISTINCT ON (head.memory_rowid) head.memory_rowid, head.chunk, head.score, head.n
            FROM head ORDER BY head.memory_rowid, head.n
        )
        SELECT array_agg(f.memory_rowid ORDER BY f.n), array_agg(f.chunk ORDER BY f.n),
               array_agg(f.score ORDER BY f.n), (SELECT count(*) FROM head)
        INTO ids, parts, scores, kept FROM firsts f;
        IF kept >= depth AND coalesce(cardinality(ids), 0) < k THEN
            -- memories of many chunks filled the head: rank every chunk scored
            RETURN QUERY SELECT * FROM memory_bm25_scan(q_scopes, q_terms, k, k1, b);
            RETURN;
        END IF;
        RETURN QUERY SELECT x.id, x.chunk, x.score
            FROM unnest(ids, parts, scores) WITH ORDINALITY AS x(id, chunk, score, n) ORDER BY x.n LIMIT k;
    END
    $$;
"""
)
