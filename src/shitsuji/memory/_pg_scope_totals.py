"""Scope totals for BM25 on PostgreSQL without one row that every write into a scope must lock.

Why: BM25 needs each searched scope's chunk and term totals (the document count and average
length). ``memory_scope_stats`` kept them as one row per scope, and every write into the scope
(a new memory, a forgotten or restored one, an edit) added to that row in its transaction and so
held the row's lock until it committed: two app processes remembering into one household scope,
or an import beside a chat's extraction, took turns there whatever their words.

Now a scope's totals are split over up to ``SLOTS`` rows of ``memory_scope_slots``, keyed by
(scope, slot), where the slot is the writing connection's (its backend pid modulo ``SLOTS``):
writers on different connections add to different rows (two that share a slot wait for each
other, as every writer did before), and ``memory_scope_stats`` becomes a view that sums a scope's
slots. The sums stay exact: every change is an addition of a signed delta, in the transaction of
the change, so a slot holds the net of what was written through it and the view the scope's
total. ``memory_bm25`` reads the view by its old name, unchanged; reading it costs a scan of at
most ``SLOTS`` index entries per searched scope.

The triggers' function ``memory_keyword_apply`` (``_pg_keywords``) is replaced with the same text
but its last statement, which now writes the slot (migration ``0014_tp25_scope_totals_slots``;
the term statistics, one row per scope and term, are left as they are).
"""

from __future__ import annotations

from typing import Final

from ._pg_keywords import POSTGRES_POSTINGS

#: Rows a scope's totals are spread over: more writers of one scope at once than app connections
#: of a few processes are rare, and a search sums at most this many rows a scope.
SLOTS: Final = 16

_ONE_ROW = """
        INSERT INTO memory_scope_stats AS s (scope, chunks, terms)
        SELECT r.scope, sign * sum(r.c), sign * sum(r.l)
        FROM unnest(r_scopes, r_chunks, r_lengths) AS r(scope, c, l) GROUP BY r.scope ORDER BY r.scope
        ON CONFLICT (scope) DO UPDATE SET chunks = s.chunks + excluded.chunks, terms = s.terms + excluded.terms;
"""
_A_SLOT = f"""
        INSERT INTO memory_scope_slots AS s (scope, slot, chunks, terms)
        SELECT r.scope, pg_backend_pid() % {SLOTS}, sign * sum(r.c), sign * sum(r.l)
        FROM unnest(r_scopes, r_chunks, r_lengths) AS r(scope, c, l) GROUP BY r.scope ORDER BY r.scope
        ON CONFLICT (scope, slot) DO UPDATE
        SET chunks = s.chunks + excluded.chunks, terms = s.terms + excluded.terms;
"""


def _apply_with_slots() -> str:
    """``memory_keyword_apply`` as migration 0012 made it, its scope totals written to a slot."""
    start = POSTGRES_POSTINGS.index("CREATE FUNCTION memory_keyword_apply(")
    end = POSTGRES_POSTINGS.index("$$;", start) + len("$$")
    text = POSTGRES_POSTINGS[start:end]
    if text.count(_ONE_ROW) != 1:  # an applied migration's text never changes: this is a programming error
        raise RuntimeError("memory_keyword_apply of 0012 is not the one 0013 rewrites")
    return text.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1).replace(_ONE_ROW, _A_SLOT)


#: Migration text (PostgreSQL only). The existing totals become slot 0 of their scope.
POSTGRES_SCOPE_SLOTS: Final = f"""
    ALTER TABLE memory_scope_stats RENAME TO memory_scope_slots;
    ALTER TABLE memory_scope_slots ADD COLUMN slot int4 NOT NULL DEFAULT 0;
    ALTER TABLE memory_scope_slots DROP CONSTRAINT memory_scope_stats_pkey;
    ALTER TABLE memory_scope_slots ADD PRIMARY KEY (scope, slot);
    CREATE VIEW memory_scope_stats AS
        SELECT scope, sum(chunks)::bigint AS chunks, sum(terms)::bigint AS terms
        FROM memory_scope_slots GROUP BY scope;
    {_apply_with_slots()};
"""
