"""A batch's postings split from its stored terms in one grouping pass: the chunk's length by a window.

Why: ``memory_postings_of`` (``_pg_keywords``) — what every keyword trigger runs over the rows a
statement added or removed — split the stored terms, grouped them twice (a term's frequency per
chunk, then the chunk's length) and joined the two groupings back together. The length is the sum of
the chunk's term frequencies, so one grouping with a window over its rows gives both: the same rows,
0.65x the time on a bulk batch of 1,000 memories (170.9 → 110.8 ms for 16,218 postings, median of 15
alternating calls at load 15; docs/benchmarks.md, "Issue 25, bk25"). Nothing else changes: the
function keeps its name, signature and result, so ``memory_keyword_apply`` calls it as before.

Migration ``0021_bk25_postings_window`` (PostgreSQL only) replaces the function.
"""

from __future__ import annotations

from typing import Final

#: Migration text (PostgreSQL only).
POSTGRES_POSTINGS_WINDOW: Final = r"""
    CREATE OR REPLACE FUNCTION memory_postings_of(r_ids bigint[], r_scopes text[], r_terms text[])
        RETURNS TABLE (scope text, term text, memory_rowid bigint, chunk bigint, tf bigint, len bigint)
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT w.scope, w.term, w.id, w.chunk, count(*),
               (sum(count(*)) OVER (PARTITION BY w.id, w.chunk))::bigint
        FROM (
            SELECT r.id, r.scope, c.n - 1 AS chunk, t.term
            FROM unnest(r_ids, r_scopes, r_terms) AS r(id, scope, stored),
                 unnest(string_to_array(r.stored, chr(10))) WITH ORDINALITY AS c(line, n),
                 string_to_table(c.line, ' ') AS t(term)
            WHERE t.term <> ''
        ) w
        GROUP BY w.id, w.chunk, w.scope, w.term
    $$
"""
