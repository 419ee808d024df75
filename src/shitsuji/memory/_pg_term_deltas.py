"""Term statistics as signed counts added, not upserted: a bulk load's keyword upkeep without a lock or a conflict check a row.

Why: the keyword triggers (``_pg_keywords``) cost 80-85 % of a bulk load's rows phase on PostgreSQL.
A batch of 1,000 memories brings ~16,000 postings, and in small scopes almost as many (scope, term)
pairs: each went into ``memory_term_stats`` by ``INSERT … ON CONFLICT DO UPDATE`` — a conflict check
before every row, a speculative insertion confirmed after it, a row lock on every pair already there
— twice the time of a plain insert of the same rows (docs/benchmarks.md, "Issue 25, kt25").

Now a pair's count is the **sum of its rows** (``memory_bm25`` already sums the rows of the searched
scopes: it reads the table unchanged). The table loses its unique key for a plain index on (scope,
term), and a write adds one row per pair it touches holding its signed count (+ chunks added, −
chunks removed): a plain insert, no conflict, nothing locked, nothing for two writers to wait on or
deadlock over. The sums stay exact: each row is written in the transaction of the change it counts.

Rows a pair: one per statement that touched it, so a small statement — a chat's remember, a
forget, an edit (at most ``COMPACT_MAX`` memories) — folds the rows of the pairs it touched into
one (their rows locked in key order, those rows deleted, their sum inserted; a pair whose sum is 0
keeps no row). The fold is exact beside other writers: a row another transaction has not committed
is not seen, so not deleted; a row another fold deleted first is skipped, that fold's sum counts it. A
pair written only by bulk statements keeps one row per batch that touched it (at most the
postings of those batches: a search sums them — a common word loaded into one scope in 50 batches
of 1,000 sums 50 rows) until a small write touches it.

**A bulk load's end folds its scopes' pairs** (``FOLD_SCOPES_SQL``, from ``PostgresMemoryStore.bulk``):
every pair of the scopes it wrote that holds more than ``FOLD_ROWS`` rows becomes one row, as a small
write's fold does — so a scope filled by an import of many batches is not left with a row per batch for
every search to sum (a 50k scope loaded in 500 batches: keyword p50 1.45x the folded table's; in 50,
1.14x — docs/benchmarks.md, "Issue 25, bk25"). Pairs of a few rows are left: each row folded is
locked, then deleted — folding every pair (or every pair of more than 8 rows) of a 20,000-memory
load of 20 batches into one scope made its end 0.5 → 2.4-3.1 s (load 15-18), for rows a search does
not feel (at most ``FOLD_ROWS`` a term). Its rows are locked in key order with ``SKIP LOCKED``: a
row a concurrent fold (a chat's remember, a forget) holds is left to that fold, so the load's end never
waits on a small writer nor deadlocks with one; a row not locked is deleted and counted in the one sum
that replaces the rows it locked. The sums stay exact (a row is counted by exactly the fold that
deleted it); a pair skipped keeps a few rows until its next write.

Migration ``0020_kt25_term_deltas`` (PostgreSQL only): the key dropped, the index made, and
``memory_keyword_apply`` replaced (the text of 0016, ``_pg_postings_order``, but the statistics).
"""

from __future__ import annotations

from typing import Final

from ._pg_postings_order import _sorted_apply

#: Statements of at most this many memories fold the rows of the pairs they touched (see above).
COMPACT_MAX: Final = 64

_UPSERT_FROM = "            INSERT INTO memory_term_stats AS s (scope, term, chunks)\n"
_UPSERT_TO = "        END IF;\n        INSERT INTO memory_scope_slots"

#: What replaces 0016's statistics: from the positive branch's upsert to the end of the negative branch.
_ADDED = f"""            ), counted AS (
                INSERT INTO memory_term_stats (scope, term, chunks)
                SELECT p.scope, p.term, count(*) FROM p GROUP BY p.scope, p.term
                ORDER BY p.scope COLLATE "C", p.term COLLATE "C"
                RETURNING scope, term
            )
            SELECT array_agg(c.scope), array_agg(c.term) INTO g_scopes, g_terms FROM counted c
            WHERE cardinality(r_ids) <= {COMPACT_MAX};
        ELSE
            WITH gone AS (
                DELETE FROM memory_postings x USING memory_postings_of(r_ids, r_scopes, r_terms) p
                WHERE x.scope = p.scope AND x.term = p.term AND x.memory_rowid = p.memory_rowid
                  AND x.chunk = p.chunk
                RETURNING x.scope, x.term
            ), counted AS (
                INSERT INTO memory_term_stats (scope, term, chunks)
                SELECT gone.scope, gone.term, -count(*) FROM gone GROUP BY gone.scope, gone.term
                ORDER BY gone.scope COLLATE "C", gone.term COLLATE "C"
                RETURNING scope, term
            )
            SELECT array_agg(c.scope), array_agg(c.term) INTO g_scopes, g_terms FROM counted c
            WHERE cardinality(r_ids) <= {COMPACT_MAX};
        END IF;
        IF g_scopes IS NOT NULL THEN
            -- a small statement folds its pairs' rows into one each: the rows locked in key order (two
            -- folds of the same words wait for each other instead of deadlocking), and only the rows
            -- locked deleted (by their place: a row committed meanwhile is left, and counted, as it is)
            WITH locked AS (
                SELECT s.ctid AS place FROM memory_term_stats s
                WHERE (s.scope, s.term) IN (SELECT * FROM unnest(g_scopes, g_terms))
                ORDER BY s.scope, s.term FOR UPDATE
            ), folded AS (
                DELETE FROM memory_term_stats s WHERE s.ctid = ANY (ARRAY(SELECT locked.place FROM locked))
                RETURNING s.scope, s.term, s.chunks
            )
            INSERT INTO memory_term_stats (scope, term, chunks)
            SELECT f.scope, f.term, sum(f.chunks) FROM folded f GROUP BY f.scope, f.term
            HAVING sum(f.chunks) <> 0 ORDER BY f.scope COLLATE "C", f.term COLLATE "C";
"""


def _delta_apply() -> str:
    """``memory_keyword_apply`` as migration 0016 left it, its statistics added as rows (``_ADDED``)."""
    text = _sorted_apply()
    start, end = text.find(_UPSERT_FROM), text.find(_UPSERT_TO)
    if text.count(_UPSERT_FROM) != 1 or end < start:  # the text of 0016 is fixed: a programming error
        raise RuntimeError("memory_keyword_apply of 0016 is not the one 0020 rewrites")
    head = text[:start].replace("        g_counts bigint[];\n", "", 1)  # the fold needs the pairs alone
    # the positive branch's CTEs go on into ``counted``; its ``END IF`` closes the fold's ``IF`` now
    return head[: head.rindex("            )\n")] + _ADDED + text[end:]


#: Migration text (PostgreSQL only).
POSTGRES_TERM_DELTAS: Final = f"""
    ALTER TABLE memory_term_stats DROP CONSTRAINT memory_term_stats_pkey;
    CREATE INDEX memory_term_stats_key ON memory_term_stats (scope, term);
    {_delta_apply()};
"""

_FOLD_LOCKS = "                ORDER BY s.scope, s.term FOR UPDATE\n"
_FOLD_LOCKS_TOTAL = "                ORDER BY s.scope, s.term, s.ctid FOR UPDATE\n"


def _total_order_apply() -> str:
    """``memory_keyword_apply`` of 0020 with its fold's locks taken in a total order (see below)."""
    text = _delta_apply().replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    if text.count(_FOLD_LOCKS) != 1:  # the text of 0020 is fixed: a programming error
        raise RuntimeError("memory_keyword_apply of 0020 is not the one 0023 rewrites")
    return text.replace(_FOLD_LOCKS, _FOLD_LOCKS_TOTAL)


#: Migration ``0023_fold_lock_order`` (PostgreSQL only): a small write's fold locked its pairs' rows
#: ordered by (scope, term) alone — a pair held in several rows left their order to the sort, which may
#: put two rows of one pair one way in one transaction and the other way in another (each sorts the rows
#: it sees, its own new rows among them), so two small writes of the same words could each hold a row the
#: other waited for: a deadlock, one remember failing (seen once in the suite, four threads remembering
#: and forgetting the same words). A row's place (``ctid``) breaks the tie: rows here are only inserted
#: and deleted, never updated, so a row keeps its place and every fold locks shared rows in one order.
POSTGRES_FOLD_LOCK_ORDER: Final = f"{_total_order_apply()};"


#: A bulk load's end folds the pairs of its scopes held in more than this many rows (see above).
FOLD_ROWS: Final = 32

#: A fold's end: the rows whose places ``locked`` holds deleted, their sum a pair inserted as one row
#: (none for a sum of 0), in key order.
_FOLDED_SQL: Final = """    ), folded AS (
        DELETE FROM memory_term_stats s WHERE s.ctid = ANY (ARRAY(SELECT locked.place FROM locked))
        RETURNING s.scope, s.term, s.chunks
    )
    INSERT INTO memory_term_stats (scope, term, chunks)
    SELECT f.scope, f.term, sum(f.chunks) FROM folded f GROUP BY f.scope, f.term
    HAVING sum(f.chunks) <> 0 ORDER BY f.scope COLLATE "C", f.term COLLATE "C"
"""


def fold_sql(rows_of: str) -> str:
    """The fold of the pairs among the rows ``rows_of`` (a condition on ``s``, a row of
    ``memory_term_stats``) held there in more than ``%(rows)s`` rows: those rows locked in the small
    write's fold order (scope, term, place) with ``SKIP LOCKED`` (a row another fold holds is that
    fold's), deleted, their sum inserted as one row (none for a sum of 0). See the module's docstring.

    The rows are read once (a window counts each pair's) and locked by their places: a join of the pairs
    found back to the table (``(scope, term) IN (SELECT …)``) was planned as a nested loop over the
    scope's rows on a table just loaded, its statistics older than the load — sc26's single-scope fold
    took 333 s for 9,000 rows that way, 0.09 s this way; the load's-end fold had the same join
    (``test_pg_term_deltas``: its plan on such a table)."""
    return f"""
    WITH counted AS (
        SELECT s.ctid AS place, count(*) OVER (PARTITION BY s.scope, s.term) AS n FROM memory_term_stats s
        WHERE {rows_of}
    ), locked AS (
        SELECT s.ctid AS place FROM memory_term_stats s
        WHERE s.ctid = ANY (ARRAY(SELECT c.place FROM counted c WHERE c.n > %(rows)s))
        ORDER BY s.scope, s.term, s.ctid FOR UPDATE SKIP LOCKED
{_FOLDED_SQL}"""


#: The fold of every pair of the given scopes (``%(scopes)s``, a text array) held in more than
#: ``%(rows)s`` rows (``fold_sql``): a bulk load's end.
FOLD_SCOPES_SQL: Final = fold_sql("s.scope = ANY(%(scopes)s)")
