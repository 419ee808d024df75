"""``shitsuji doctor``'s line for pending vector search graphs (PostgreSQL), and for vector rows waiting for their
rewrite into the row (``memory._pg_inline``), and for scopes whose term-count rows wait for their background fold
(``memory._pg_term_upkeep``).

Why a line: a bulk load on PostgreSQL returns before its HNSW graph is built, and the build runs in the
background of whichever long-lived process writes to the database or serves it (``memory._pg_graph_builds``); a process that
exits cancels it. Where only short commands open the database the graph stays pending: every search still
gives the true top-k, by comparing every vector of the scope — silently slower. The doctor says how many
scopes and vectors wait, whether a build is under way now, and the command that finishes it. A built graph's
line gives its size beside the server's ``shared_buffers``, and warns when the graph does not fit them (a
walk then reads its pages from the OS cache: ``memory._pg_halfvec``).

It reads and never writes, as the rest of the doctor (it asks the server; the doctor's later opening of the
store starts no build either: only a writer, ``serve`` or ``reindex --graph-only`` does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._check import TIMEOUT_S, Check

if TYPE_CHECKING:
    from ..config import Settings

_FIX = (
    "shitsuji reindex --graph-only (builds it and waits), or keep `shitsuji serve` running until it is built"
)
#: What finishes background upkeep that no command waits for.
_KEEP_SERVING = (
    "run `shitsuji reindex --graph-only` (it waits until done), or keep `shitsuji serve` (or another "
    "long-running process that writes memories) running until it is done"
)


def graph_checks(settings: Settings) -> list[Check]:
    """One ``vector graph`` line on PostgreSQL (none on SQLite, or before the memory tables exist)."""
    if settings.database_url is None:
        return []
    import psycopg

    from ..memory._pg_graph_builds import build_progress, build_running, pending_graphs
    from ..memory._pg_halfvec import graph_room
    from ..memory._pg_inline import rewrites_left
    from ..memory._pg_term_upkeep import due_scopes

    try:
        with psycopg.connect(settings.database_url, connect_timeout=int(TIMEOUT_S), autocommit=True) as pg:
            if pg.execute("SELECT to_regclass('memory_vector_models')").fetchone()[0] is None:  # type: ignore[index]
                return []
            pending = pending_graphs(pg)
            running, progress = build_running(pg), build_progress(pg)
            room = graph_room(pg)
            left = rewrites_left(pg)
            due = due_scopes(pg)
    except psycopg.Error as exc:  # a refused connection is the database check's finding
        return [Check("vector graph", "warn", f"not looked at: {str(exc).strip() or type(exc).__name__}")]
    rows = ([] if not left else [rewrite_line(left)]) + ([] if not due[0] else [fold_line(*due)])
    if not pending:
        return [built_line(*room), *rows]
    scopes, vectors = sum(p.scopes for p in pending), sum(p.vectors for p in pending)
    now = f"; being built now ({progress})" if progress else "; being built now" if running else ""
    return [
        Check(
            "vector graph",
            "warn",
            f"pending for {scopes} scope(s), {vectors:,} vectors: their searches compare every vector "
            f"(the same results, slower){now}",
            _FIX,
        ),
        *rows,
    ]


def rewrite_line(left: int) -> Check:
    """The line of vector rows stored before their vectors were kept in the row (``memory._pg_inline``),
    ``left`` rowids of them not rewritten yet."""
    return Check(
        "vector rows",
        "warn",
        f"{left:,} rowids' vectors stored before this version are read through TOAST (~3 pages a vector, "
        "not 1) until the background rewrite reaches them (the same results, slower in scopes not read lately)",
        _KEEP_SERVING,
    )


def fold_line(scopes: int, statements: int) -> Check:
    """The line of ``scopes`` whose term counts ``statements`` large writes left in rows a search sums,
    waiting for the background fold (``memory._pg_term_upkeep``)."""
    return Check(
        "term counts",
        "warn",
        f"{scopes:,} scope(s) written by {statements:,} large statements since their terms' rows were folded: "
        "their keyword searches sum a row per statement a term (the same results, slower) until the "
        "background fold reaches them",
        _KEEP_SERVING,
    )


def built_line(size: int, buffers: int) -> Check:
    """The line of built graphs of ``size`` bytes on a server of ``buffers`` bytes of ``shared_buffers``."""
    mb = f"{size / 2**20:,.1f} MB; shared_buffers {buffers / 2**20:,.0f} MB"
    if size <= buffers:
        return Check("vector graph", "ok", f"every large scope's vector search graph is built ({mb})")
    return Check(
        "vector graph",
        "warn",
        f"built, but larger than the server's shared_buffers ({mb}): "
        "its searches read graph pages from the OS cache (the same results, slower)",
        f"raise shared_buffers above {size / 2**20:,.0f} MB (postgresql.conf or ALTER SYSTEM), then restart PostgreSQL",
    )
