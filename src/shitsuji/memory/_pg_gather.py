"""A scope's vector rows gathered onto adjacent pages, in the background: a cold recall reads ~35 pages, not ~100.

Why: households write their memories one at a time and all at once, so the rows of a vector table
(``memory_vectors_<n>``) arrive interleaved: a 100-memory scope's rows sit on ~100 different pages, one
row a page, and the exact scan of a scope no query has read reads one page from disk per vector (at
200k memories / 2k scopes: 1.01 pages per vector, docs/benchmarks.md, cs25). Written in scope order the
same rows fill three to a page (a 512-d row is ~2.1 KB): ~0.35 pages per vector.

**What moves**: a scope's rows outside the graph (``NOT graph``: the scopes searched by their scope
btree; a graph scope is walked through its HNSW index, and a moved graph row would be inserted into the
graph again), when the scope holds at least ``MIN_ROWS`` rows and spans more than one page per
``SPREAD`` rows (``ctid`` page counts): a scattered scope (one row a page) moves, a gathered one (three
a page) does not until a third of its rows again arrived scattered. A move is one statement per batch of
scopes: their rows written again (an update of each row onto itself, so the new versions are appended in
scope order) in one short transaction; values, keys and flags unchanged.

**Which scopes are looked at**: those with rows of memories written since the last look (a mark per
table in ``memory_vector_gather``, the highest ``memories.rowid`` looked at; none at first: every
scope). An opening asks the upkeep (``_pg_graph_builds``) to look again once ``DUE_NEW`` memories
have been written since (``GATHER_DUE_SQL``: one of ``UPKEEP_DUE``'s questions); it runs where graphs are
built and old rows rewritten (a writer's first write, ``serve``, ``reindex --graph-only``).

**It never waits on a writer**: the rows are taken ``FOR UPDATE SKIP LOCKED`` and written again in
place of themselves (``move_sql``: an update, so a writer waiting for a row acts on its new version);
a row a writer holds stays where it is. A writer waits at most for one batch (~2,000 rows, well under a
second).

**The free-space map**: a moved row leaves a hole of one row on its old page; once vacuum records it,
the next insert the free-space map sends there — a scope moved after that vacuum would be scattered
into the holes of the scopes moved before it (measured: 0.92 pages per vector instead of 0.34). So while
a table's scopes move, its autovacuum is off (``autovacuum_enabled = false``, a catalog setting that
readers and writers do not wait for): the holes stay dead rows, every moved row goes to pages of its
own, and the setting is reset at the run's end (or, if the process died meanwhile, by the next run:
``_pg_graph_builds.leftover_settings``), after which vacuum frees the old pages for new rows. Cost:
the moved rows' old space stays in the table, reused by later writes, not returned to the disk.

**Then a vacuum** (``vacuum_moved``): a plain ``VACUUM`` of the table right after its moves, so that the
moved rows' first reads do not each write their pages' images to the WAL to set hint bits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

log = logging.getLogger(__name__)

#: A scope with fewer rows than this is not moved (a handful of pages either way).
MIN_ROWS: Final = 8
#: A scope spanning more than one page per this many rows is scattered (gathered 512-d rows: three a page).
SPREAD: Final = 2
#: Rows a move's transaction covers (whole scopes: a larger scope moves alone).
BATCH: Final = 2000
#: Memories written since the last look after which an opening asks the upkeep to look again.
DUE_NEW: Final = 1000
#: Scopes whose spread one statement reads.
LOOK_BATCH: Final = 500

#: Migration ``0025_cl26_scope_gather`` (PostgreSQL only): the mark of each vector table's last look.
POSTGRES_SCOPE_GATHER: Final = """
    CREATE TABLE memory_vector_gather ( /* keyed by table, no rowid */
        tbl TEXT PRIMARY KEY, seen_rowid BIGINT NOT NULL
    );
"""

#: Whether a vector table has ``DUE_NEW`` memories written since its last look (``UPKEEP_DUE``).
GATHER_DUE_SQL: Final = (
    "SELECT 1 FROM memory_vector_models m LEFT JOIN memory_vector_gather g ON g.tbl = 'memory_vectors_' || m.rowid "
    f"WHERE coalesce(g.seen_rowid, 0) + {DUE_NEW} <= (SELECT coalesce(max(rowid), 0) FROM memories)"
)


def scattered_sql(table: str) -> str:
    """Of the given scopes, those whose rows outside the graph are scattered, with their row counts."""
    return (
        f"SELECT scope, count(*) FROM {table} WHERE scope = ANY(%s) AND NOT graph GROUP BY scope "
        f"HAVING count(*) >= {MIN_ROWS} AND {SPREAD} * count(DISTINCT (ctid::text::point)[0]) > count(*)"
    )


def move_sql(table: str) -> str:
    """The given scopes' rows outside the graph written again in scope order, skipping rows a writer
    holds; the rows moved.

    An ``UPDATE``, not a delete and an insert: a writer that waits for one of these rows (a forget's
    delete, a fold's ``graph = true``) then follows the row to its new version and acts on it; after a
    delete it would find the row gone and skip it, and the moved row would outlive its forget. The new
    version goes to another page because the old one is full (three 512-d rows leave ~1.8 KB, less than
    a row); it is no HOT update (a full page), so each index gets the new place. A row on a page with
    room for it (another row's hole) stays there (a HOT update): a scope moved again, among pages with
    holes, ended at ~0.44 pages per row, not ~0.34 (docs/benchmarks.md, cl26; the share of each cause
    not measured). Run with hash and
    merge joins off: a nested loop over ``held`` writes the rows in its order (a hash join over the
    table would write them in the table's scattered order)."""
    return (
        f"UPDATE {table} v SET chunk = v.chunk FROM (SELECT ctid AS at FROM {table} "
        "WHERE scope = ANY(%s) AND NOT graph ORDER BY scope, memory_rowid, chunk FOR UPDATE SKIP LOCKED) held "
        "WHERE v.ctid = held.at"
    )


def gather_scopes(conn: Any, cancelled: Callable[[], bool]) -> int:
    """Move the scattered scopes of every vector table with ``DUE_NEW`` memories written since its last
    look; the rows moved (``conn``: autocommit, the build lock held)."""
    top = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0])
    moved = 0
    for (number,) in conn.execute("SELECT rowid FROM memory_vector_models ORDER BY rowid").fetchall():
        table = f"memory_vectors_{int(number)}"  # an integer of ours: no user text reaches the SQL
        row = conn.execute("SELECT seen_rowid FROM memory_vector_gather WHERE tbl = %s", (table,)).fetchone()
        seen = 0 if row is None else int(row[0])
        if seen + DUE_NEW > top or conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
            continue
        here = gather_table(conn, table, seen, top, cancelled)
        moved += here
        if cancelled():
            break
        if here:  # the mark's commit waits for the disk, and with it the moves' (see ``vacuum_moved``)
            conn.execute("SET synchronous_commit = on")
        conn.execute(
            "INSERT INTO memory_vector_gather VALUES (%s, %s) ON CONFLICT (tbl) DO UPDATE SET seen_rowid = %s",
            (table, top, top),
        )
        if here:
            vacuum_moved(conn, table)
    if moved:
        log.info("vector tables: %s rows of scattered scopes gathered", f"{moved:,}")
    return moved


def vacuum_moved(conn: Any, table: str) -> None:
    """A plain ``VACUUM`` of ``table`` once its scopes have moved and its autovacuum is on again (``conn``:
    autocommit, outside a transaction — ``VACUUM`` runs in none — the build lock held).

    Why: until vacuum has been over them, the moved rows' first reads set their hint bits, and on a
    checksummed cluster each page's first change after a checkpoint writes its whole image to the WAL: a
    recall in a gathered scope wrote 393-651 KB of WAL (p50) against ~90 before (docs/benchmarks.md,
    "After the session-12 merge"), until autovacuum came by. Run now, that cost is paid once, here, and the
    moved-from pages' holes go to the free-space map for later writes. Not ``FULL``: a plain vacuum takes
    a lock readers and writers do not wait for (``SHARE UPDATE EXCLUSIVE``); it runs under the build lock,
    so a load's end that drops the graph index (``ACCESS EXCLUSIVE``) polls for that lock rather than
    queue every reader behind a waiting ``DROP INDEX``. A cancel (the process's exit) stops it; the
    table's autovacuum does the rest.

    The moves' commits must be on disk first (the mark's commit before it waits for them: ``gather_scopes``):
    where commits do not wait (``synchronous_commit = off``, the tests' server and many app settings) a
    vacuum right after them removed none of the moved rows' old versions and left their pages not
    all-visible (800 pages, 400 all-visible; with the flush, 800)."""
    conn.execute(f"VACUUM {table}")


def gather_table(conn: Any, table: str, seen: int, top: int, cancelled: Callable[[], bool]) -> int:
    """Move the scattered scopes among those with rows of memories ``seen < rowid <= top``."""
    touched = [
        r[0]
        for r in conn.execute(
            f"SELECT DISTINCT scope FROM {table} WHERE memory_rowid > %s AND memory_rowid <= %s AND NOT graph",
            (seen, top),
        ).fetchall()
    ]
    spread: list[tuple[str, int]] = []
    for at in range(0, len(touched), LOOK_BATCH):
        spread += conn.execute(scattered_sql(table), (touched[at : at + LOOK_BATCH],)).fetchall()
    if not spread or cancelled():
        return 0
    moved = 0
    conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")  # holes stay dead meanwhile
    try:
        for batch in _batches(spread):
            if cancelled():
                break
            with conn.transaction():  # rows written in the held rows' order: a nested loop over them
                conn.execute("SET LOCAL enable_hashjoin = off")
                conn.execute("SET LOCAL enable_mergejoin = off")
                moved += max(conn.execute(move_sql(table), (batch,)).rowcount, 0)
    finally:
        conn.execute(f"ALTER TABLE {table} RESET (autovacuum_enabled)")
    return moved


def _batches(spread: list[tuple[str, int]]) -> list[list[str]]:
    """Scopes in groups of at most ``BATCH`` rows (a larger scope alone), each group one transaction."""
    batches: list[list[str]] = [[]]
    rows = 0
    for scope, count in sorted(spread):
        if batches[-1] and rows + count > BATCH:
            batches.append([])
            rows = 0
        batches[-1].append(scope)
        rows += int(count)
    return batches
