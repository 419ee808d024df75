"""Postings written in their index's order: the keyword triggers' cost of a bulk load cut by a sort.

Why: the statement-level trigger on ``memories`` (``_pg_keywords.memory_keyword_apply``) inserts a
batch's postings — ~16 a memory, 16,000 for a batch of 1,000 — into ``memory_postings``, whose
primary key is (scope, term, memory rowid, chunk). They came in the order the words were read, so
every posting landed on another leaf of the key's btree. Sorted by the key (the columns compare
bytewise, ``COLLATE "C"``, as the index does), neighbouring postings share leaves: the insert took
0.41 → 0.22 s and 0.96 → 0.50 s for the same batch (docs/benchmarks.md, "Issue 25, in25b"). Nothing
else changes: the same rows, the same statistics, in the same transaction.

Migration ``0016_in25b_sorted_postings`` replaces the function with the text migration
``0014_tp25_scope_totals_slots`` gave it but that one insert (an applied migration's text never
changes; this one is derived from it and checked).
"""

from __future__ import annotations

from typing import Final

from ._pg_scope_totals import _apply_with_slots

_UNSORTED = "INSERT INTO memory_postings (scope, term, memory_rowid, chunk, tf, len) SELECT * FROM p\n"
_SORTED = (
    "INSERT INTO memory_postings (scope, term, memory_rowid, chunk, tf, len) SELECT * FROM p\n"
    '                ORDER BY p.scope COLLATE "C", p.term COLLATE "C", p.memory_rowid, p.chunk\n'
)


def _sorted_apply() -> str:
    text = _apply_with_slots()
    if text.count(_UNSORTED) != 1:  # the text of 0014 is fixed: this is a programming error
        raise RuntimeError("memory_keyword_apply of 0014 is not the one 0015 rewrites")
    return text.replace(_UNSORTED, _SORTED)


#: Migration text (PostgreSQL only).
POSTGRES_SORTED_POSTINGS: Final = f"{_sorted_apply()};"
