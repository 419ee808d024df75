"""The background fold of term-count rows: a scope many separate small loads filled keeps few rows a term.

Why: a term's count in a scope is the sum of its rows in ``memory_term_stats``, one added by each
statement that wrote the pair (``_pg_term_deltas``). A small write folds the pairs it touched, and a bulk
load's end folds the pairs of the scopes it wrote in more than ``FOLD_ROWS`` statements — but a scope
filled by many *separate* loads of fewer statements (imports of a few hundred lines, ``add_many``
batches) kept a row per statement until a small write touched the pair: 50,000 memories imported 100 at a
time left 506,000 rows for 14,000 pairs, and a keyword search summed them all (p50 1.45x the folded
table's: docs/benchmarks.md, "Issue 25, bk25" and "sc26").

**What is due is noted by the writers**: a statement of more than ``COMPACT_MAX`` memories (which folds
nothing itself) adds to its scopes' count of such statements in ``memory_term_fold_due`` — a bulk load
once at its end, for every scope it wrote (``NOTE_SQL``: one upsert in scope order, so two loads' ends
wait for each other rather than deadlock), a large ``insert_many`` outside a load in its own transaction.
A scope noted more than ``DUE_STATEMENTS`` (32) times since its last fold is due.
(Large forgets and moves — rare, administrative — are not noted: a pair gets one row from each.)

**The fold runs in the background** (``fold_due_scopes``: the graph-build thread of ``_pg_graph_builds``,
on its own connection, before the pending graphs and without their build lock — a load's end that waits
for that lock to move rows into a graph never waits for a fold): scope by scope, the pairs held in more than
``UPKEEP_ROWS`` rows folded into one as a small write's fold does — the rows locked in that fold's order
(scope, term, ctid; migration ``0023_fold_lock_order``) with ``SKIP LOCKED``, deleted, their sum
inserted (none for 0). It never waits on a writer (a row a small write's fold holds is that fold's, and
counted by it; a row not yet committed is not seen and stays), so it takes part in no deadlock and loses
no count; a small write that meets a row it holds waits at most one of its short transactions. The work a
transaction does is bounded: the pairs among ``SCAN_ROWS`` rows of the scope, walked in index order.
When a scope is done its count goes down by what the fold read at its start (a load noted meanwhile
stays due); a process stopped midway leaves the scope due for the next run. ``shitsuji doctor`` says
when scopes wait (``due_scopes``).

Migration ``0026_sc26_term_fold_due`` makes the table and notes every scope once (a database from before
may hold scopes that many loads filled: the first run visits each scope's rows once).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

from ._pg_term_deltas import FOLD_ROWS, fold_sql

log = logging.getLogger(__name__)

#: A due scope's pairs held in more rows than this are folded.
UPKEEP_ROWS: Final = 8
#: A scope noted by more large statements than this is due (the bulk load's own bound, ``FOLD_ROWS``): a pass
#: reads the whole scope, so passing every 8 statements (the first setting) cost a 50k scope filled 100
#: memories at a time 56 passes, 17-22 s beside 16-23 s of loading (the loads' wall 1.46-1.50x); every 32,
#: 15 passes, 8.4 s, the wall 1.0x, 75k rows left for 14k pairs rather than 60k (docs/benchmarks.md, sc26).
DUE_STATEMENTS: Final = FOLD_ROWS
#: Rows of ``memory_term_stats`` one fold transaction reads (its pairs among them folded).
SCAN_ROWS: Final = 20_000

#: Migration ``0026_sc26_term_fold_due`` (PostgreSQL only).
POSTGRES_TERM_FOLD_DUE: Final = f"""
    CREATE TABLE memory_term_fold_due ( /* keyed by scope, no rowid */
        scope TEXT PRIMARY KEY, statements BIGINT NOT NULL
    );
    INSERT INTO memory_term_fold_due (scope, statements)
    SELECT DISTINCT scope, {DUE_STATEMENTS + 1} FROM memory_scope_slots;
"""

#: Add ``%(counts)s`` large statements to each of ``%(scopes)s`` (arrays of one length), in scope order;
#: whether each scope is due now (``DUE_STATEMENTS``).
NOTE_SQL: Final = f"""
    INSERT INTO memory_term_fold_due AS d (scope, statements)
    SELECT u.scope, u.n FROM unnest(%(scopes)s::text[], %(counts)s::bigint[]) AS u (scope, n)
    ORDER BY u.scope COLLATE "C"
    ON CONFLICT (scope) DO UPDATE SET statements = d.statements + excluded.statements
    RETURNING d.statements > {DUE_STATEMENTS}
"""

#: The last term of the next ``%(n)s`` rows of scope ``%(scope)s`` after term ``%(after)s`` (index order).
_NEXT_TERMS_SQL: Final = """
    SELECT max(t.term), count(*) FROM (
        SELECT s.term FROM memory_term_stats s WHERE s.scope = %(scope)s AND s.term > %(after)s
        ORDER BY s.term LIMIT %(n)s
    ) t
"""

#: Scope ``%(scope)s``'s pairs with a term in (``%(after)s``, ``%(last)s``] held in more than ``%(rows)s``
#: rows, folded (``_pg_term_deltas.fold_sql``: the rows read once, locked by their places).
_FOLD_RANGE_SQL: Final = fold_sql("s.scope = %(scope)s AND s.term > %(after)s AND s.term <= %(last)s")

#: The scope's count lowered by what its fold read (``SKIP LOCKED``: a load's end noting it now is left
#: alone, and the scope stays due); a count of 0 or less leaves no row. The row is deleted or lowered by
#: one of two disjoint sub-statements: a main statement cannot delete a row its own ``WITH`` updated
#: (it sees the old version and leaves it — the earlier form kept every folded scope's row at 0).
_DONE_SQL: Final = """
    WITH held AS (
        SELECT d.scope, d.statements FROM memory_term_fold_due d WHERE d.scope = %(scope)s FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM memory_term_fold_due d USING held
        WHERE d.scope = held.scope AND held.statements <= %(seen)s RETURNING d.scope
    )
    UPDATE memory_term_fold_due d SET statements = d.statements - %(seen)s FROM held
    WHERE d.scope = held.scope AND held.statements > %(seen)s
"""

#: The scopes due and the large statements noted on them (``shitsuji doctor``).
DUE_SQL: Final = f"SELECT scope, statements FROM memory_term_fold_due WHERE statements > {DUE_STATEMENTS}"

#: Whether any scope is due (``_pg_graph_builds.UPKEEP_DUE``'s fourth question).
FOLD_DUE_SQL: Final = f"{DUE_SQL} LIMIT 1"


def note_statements(conn: Any, statements: Mapping[str, int]) -> bool:
    """Note ``statements`` (scope -> large statements that wrote it) inside the caller's transaction;
    whether a scope is due now."""
    if not statements:
        return False
    scopes = sorted(statements)
    rows = conn.execute(NOTE_SQL, {"scopes": scopes, "counts": [statements[s] for s in scopes]}).fetchall()
    return any(row[0] for row in rows)


def due_scopes(conn: Any) -> tuple[int, int]:
    """How many scopes wait for the fold and the large statements noted on them; (0, 0) before the
    migration too."""
    if conn.execute("SELECT to_regclass('memory_term_fold_due')").fetchone()[0] is None:
        return 0, 0
    row = conn.execute(f"SELECT count(*), coalesce(sum(statements), 0) FROM ({DUE_SQL}) d").fetchone()
    return int(row[0]), int(row[1])


def fold_due_scopes(conn: Any, cancelled: Callable[[], bool], rows: int = UPKEEP_ROWS) -> int:
    """Fold the pairs of more than ``rows`` rows of every scope due, each scope once (``conn``:
    autocommit, this thread's own); how many pairs were folded."""
    gone = 0
    for scope, seen in conn.execute(f"{DUE_SQL} ORDER BY scope").fetchall():
        after = ""
        while True:
            if cancelled():  # the scope stays due: the next run starts it again
                return gone
            with conn.transaction():
                last, read = conn.execute(
                    _NEXT_TERMS_SQL, {"scope": scope, "after": after, "n": SCAN_ROWS}
                ).fetchone()
                if last is None:
                    break
                folded = conn.execute(
                    _FOLD_RANGE_SQL, {"scope": scope, "after": after, "last": last, "rows": rows}
                )
                gone += max(folded.rowcount, 0)  # one sum inserted a pair folded (none for a sum of 0)
            after = last
            if read < SCAN_ROWS:
                break
        conn.execute(_DONE_SQL, {"scope": scope, "seen": seen})
    if gone:
        log.info("term counts: %s pairs folded in the background", f"{gone:,}")
    return gone
