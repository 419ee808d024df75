"""The HNSW graph built after a bulk load returns, on a thread of its own: the import's path ends at durable rows.

Why: a bulk load of 20,000 memories into one scope spent half its time (5.8 s of ~11 s at rest) building
the graph at its end, after its rows were already searchable. A load now ends with the short transaction
that drops the old index and moves the rows into the graph (``PostgresMemoryStore._move``); the build runs
here, after the import has returned.

**"Graph pending" is in the data**: a model whose vector table has no valid HNSW index
(``_pg_ingest.broken_graphs``: the index dropped by that transaction — it commits with the move — or left
invalid by a build that did not finish). Until a valid one is there the planner cannot take the index, so
a search of the graph's scopes reads their rows and sorts them by distance: the exact top-k (correct, slower
— a sequential scan), and nothing a search does waits for the build (``CREATE INDEX CONCURRENTLY`` takes a
lock that only schema changes and other builds wait for).

**Who builds**: the process that made it pending, at once, on a daemon thread with a connection of its own
(not one of the pool's: a build holds it for seconds to minutes); and a process that opened a database with a
pending graph (a process that died, a CLI import that ended first) once it writes (its first write
transaction), or when it asks (``shitsuji serve`` at its start, ``reindex --graph-only``). Opening alone starts
nothing: a read-only command (``shitsuji doctor``, a search) leaves the graph as it found it — its build
would only be cancelled at the command's exit, after holding a connection and the build lock meanwhile.
What opening learns it learns in one statement (``upkeep_due``: a pending graph, a build's setting left over). One build at a time per
database (``_pg_ingest.build_lock``); a builder that finds the index valid (built meanwhile by another
process) does nothing. At the process's exit a build still running is cancelled (its index stays invalid:
pending) rather than waited for — a short command never waits for it; the next opening builds it. A
command that should leave the graph built waits for it here (``shitsuji reindex --graph-only``, ``import
--wait-graph``: ``cli/_graph.py``).

**A long-running process looks again** (``watch``: ``shitsuji serve``): what becomes due while it runs —
scopes that other processes' imports or this one's many small writes made due for their term fold, a
vector table with ``DUE_NEW`` memories written since its gather's last look, a graph another process left
pending — is found by one ``UPKEEP_DUE`` statement every ``WATCH_S`` seconds on a connection of its own,
and sooner when this process has stored ``NUDGE_ROWS`` memories' vectors since the last look (``wrote``);
a due answer starts the same background run. The look never runs while a run is under way (the run reads what
is due itself), never on the event loop (a thread of its own) and never waits on a writer (the run's
``SKIP LOCKED``). Before, a server ran due upkeep at its start, or when one of its own writes happened to
find it due: a scope made due by a CLI import, or a table filled one memory at a time, waited for a restart.

**A build's table setting outlives a build cut off from its process**: ``build_graph`` sets the table's
``parallel_workers`` for the build and resets it after, from the same connection. A process killed
mid-build (or one whose exit cancelled the reset rather than the build) never sends the reset, while the
server finishes the ``CREATE INDEX CONCURRENTLY`` it was given (a server does not notice a client gone
while a statement runs). The setting would then stay on the table for good (every plan of it sized for
parallel workers), so the same background run resets it (``tidy``) when no build holds the lock, after a
build or in place of one when no graph is pending.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import psycopg

from ._pg_gather import DUE_NEW, GATHER_DUE_SQL, gather_scopes
from ._pg_halfvec import GRAPH_OPCLASS
from ._pg_ingest import ADVISORY_BUILD, BROKEN_GRAPHS_SQL, broken_graphs, build_graph
from ._pg_inline import REWRITE_DUE_SQL, rewrite_old_rows
from ._pg_term_upkeep import FOLD_DUE_SQL, fold_due_scopes

log = logging.getLogger(__name__)

#: Seconds between a watching process's looks at what upkeep is due (``GraphBuilds.watch``).
WATCH_S: Final = 60.0
#: Memories whose vectors this process stores after which a watching process looks at once (``DUE_NEW``).
NUDGE_ROWS: Final = DUE_NEW

_RUNNING: weakref.WeakSet[GraphBuilds] = weakref.WeakSet()


class GraphBuilds:
    """One database's pending graphs built on a background thread, one run at a time."""

    def __init__(self, url: str, create_sql: Callable[[str, int], str]) -> None:
        self._url = url
        self._create_sql = create_sql  # (table name, dimension) -> its CREATE INDEX statement
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None  # None once a run has decided to end
        # set when no run is under way. Waited on rather than ``Thread.join``: a join that Ctrl-C
        # interrupts can leave the thread marked stopped while it runs (CPython gh-66021, before 3.13),
        # and every later join returned at once — the process exited before the cancelled build's reset
        self._idle = threading.Event()
        self._idle.set()
        self._again = False  # asked to start while a run was under way: it looks again at its end
        self._conn: psycopg.Connection[Any] | None = None
        self._cancelled = False
        self._watcher: threading.Thread | None = None  # ``watch``'s thread, if this process watches
        self._wake = threading.Event()  # set to look at once (``wrote``, ``stop_watching``)
        self._stopped = False  # no look starts a run any more (the process is leaving)
        self._written = 0  # memories written since the last look (``wrote``)

    def start(self) -> None:
        """Build every pending graph on the background thread (started if none runs)."""
        self._start(looked=False)

    def _start(self, *, looked: bool) -> None:
        with self._lock:
            if looked and self._stopped:  # a look that raced the process's exit starts nothing
                return
            self._cancelled = False
            if self._thread is not None:  # a run under way (or ending after a cancel) looks again at its end
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, name="shitsuji-graph-build", daemon=True)
            self._idle.clear()
            _RUNNING.add(self)
            self._thread.start()

    def watch(self, every: float = WATCH_S) -> None:
        """Look every ``every`` seconds, on a thread of its own, whether upkeep became due
        (``UPKEEP_DUE``, one statement), and start the background run when it has; until
        ``stop_watching`` or the process's exit. Once per process: a second call does nothing."""
        with self._lock:
            if self._watcher is not None or self._stopped:
                return
            self._watcher = threading.Thread(
                target=self._watch, args=(every,), name="shitsuji-upkeep-watch", daemon=True
            )
            _RUNNING.add(self)
            self._watcher.start()

    def wrote(self, memories: int) -> None:
        """This process stored the vectors of ``memories`` memories: past ``NUDGE_ROWS`` since the last
        look, a watching process looks now rather than at its next tick (a count, never a wait)."""
        self._written += memories  # from writers' threads: a lost increment only delays a look
        if self._written >= NUDGE_ROWS and self._watcher is not None:
            self._wake.set()

    def stop_watching(self) -> None:
        """End ``watch``'s looks; a run already started goes on (``cancel`` ends it)."""
        with self._lock:
            self._stopped = True
            watcher = self._watcher
        self._wake.set()
        if watcher is not None:
            watcher.join(timeout=5.0)

    def _watch(self, every: float) -> None:
        conn: psycopg.Connection[Any] | None = None
        try:
            while True:
                self._wake.wait(every)
                self._wake.clear()
                if self._stopped:
                    return
                self._written = 0
                if not self._idle.is_set():  # a run under way reads what is due itself
                    continue
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self._url, autocommit=True)
                    due = upkeep_due(conn)
                except psycopg.Error as exc:  # the server restarting, say: looked at again next time
                    log.warning("upkeep: could not look at what is due: %s", exc)
                    if conn is not None:
                        conn.close()
                    conn = None
                    continue
                if due:
                    self._start(looked=True)
        finally:
            if conn is not None:
                conn.close()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background build (if any) to end; whether it has."""
        return self._idle.wait(timeout)

    def cancel(self, timeout: float = 10.0) -> bool:
        """Cancel a build under way (its index stays pending until ``start`` or the next opening) and
        wait, at most ``timeout`` seconds, for the thread to let go of its connection; whether it has.

        The cancel is sent again until the run ends: one that reaches the server between two of the
        build's statements cancels nothing, and the next statement (``CREATE INDEX CONCURRENTLY``, which
        waits for every older snapshot, however long another session holds one) would run on. It is sent
        with the lock held, so it never lands on the reset and unlock after the build (``_build``).
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            self._cancelled = True
        while True:
            with self._lock:
                conn = self._conn
                if conn is not None:
                    try:
                        conn.cancel_safe(timeout=max(0.5, min(2.0, deadline - time.monotonic())))
                    except (psycopg.Error, OSError) as exc:
                        log.warning("graph build: cancel failed: %s", exc)
            left = deadline - time.monotonic()
            if self._idle.wait(max(0.0, min(0.5, left))) or left <= 0:
                return self._idle.is_set()

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException:  # not a database error (those end a run below): never leave waiters waiting
            with self._lock:
                self._thread = None
                self._idle.set()
            raise

    def _loop(self) -> None:
        while True:
            try:
                with psycopg.connect(self._url, autocommit=True) as conn:
                    with self._lock:
                        self._conn = None if self._cancelled else conn
                    try:
                        if self._conn is not None:
                            self._build(conn)
                    finally:
                        with self._lock:
                            self._conn = None
            except psycopg.Error as exc:  # cancelled, or the server went away: still pending, built later
                if not self._cancelled:
                    log.warning("graph build stopped, left for the next opening: %s", exc)
            with self._lock:
                if not self._again or self._cancelled:
                    self._thread = None
                    self._idle.set()
                    return
                self._again = False

    def _build_pending(self, conn: Any) -> None:
        """Build each pending graph, one after the other, until cancelled."""
        for name in broken_graphs(conn):
            if self._cancelled:
                return
            dim, rows = conn.execute(
                f"SELECT m.dim, (SELECT count(*) FROM {name} WHERE graph) FROM memory_vector_models m "
                "WHERE 'memory_vectors_' || m.rowid = %s",
                (name,),
            ).fetchone()
            build_graph(
                conn, name, self._create_sql(name, int(dim)), 2 * int(rows), int(dim)
            )  # as the fold sized it

    def _build(self, conn: Any) -> None:
        # the term-count rows of scopes many small loads filled (``_pg_term_upkeep``), first and without
        # the build lock: a pass is seconds, never waits on a writer and is exact beside another process's
        # (so a load's end that waits for the lock to move rows into the graph never waits for it)
        if conn.execute(FOLD_DUE_SQL).fetchone() is not None:
            fold_due_scopes(conn, lambda: self._cancelled)
        if self._cancelled:
            return
        if (
            not broken_graphs(conn)
            and conn.execute(f"{REWRITE_DUE_SQL} UNION ALL {GATHER_DUE_SQL}").fetchone() is None
        ):
            _tidy_on(conn)  # nothing to build, rewrite or gather: still reset a setting a killed run left
            return
        while not _try_lock(conn):
            if self._cancelled:  # another process builds: polled (see ``build_lock``), given up on cancel
                return
            time.sleep(0.2)
        try:
            self._build_pending(conn)
            # rows stored before ``0022_cs25_inline_vectors`` moved into their rows (``_pg_inline``),
            # after the graphs: a search of a pending graph's scopes reads every one of their rows. A
            # graph with many such rows is dropped for the rewrite and built again once, over the new
            # rows, rather than each rewritten row inserted into it (``_pg_inline.rewrite_old_rows``)
            if rewrite_old_rows(conn, lambda: self._cancelled):
                self._build_pending(conn)
            # then each scattered scope's rows onto adjacent pages (``_pg_gather``)
            gather_scopes(conn, lambda: self._cancelled)
        finally:
            with self._lock:  # the reset and unlock are not the build: ``cancel`` no longer reaches them
                self._conn = None
            for name in leftover_settings(conn):  # a reset cancelled at exit, or a process killed mid-run
                conn.execute(f"ALTER TABLE {name} RESET ({RUN_SETTINGS})")
            conn.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))


def _try_lock(conn: Any) -> bool:
    return bool(conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_BUILD,)).fetchone()[0])


@dataclass(frozen=True)
class PendingGraph:
    """One vector table whose graph is pending: how many scopes and vectors wait for it."""

    table: str
    scopes: int
    vectors: int


def pending_graphs(conn: Any) -> list[PendingGraph]:
    """The pending graphs (``broken_graphs``) with the scopes and vectors each holds (``shitsuji doctor``)."""
    found = []
    for name in broken_graphs(conn):
        scopes, vectors = conn.execute(
            f"SELECT count(DISTINCT scope), count(*) FROM {name} WHERE graph"
        ).fetchone()
        found.append(PendingGraph(name, int(scopes), int(vectors)))
    return found


def build_running(conn: Any) -> bool:
    """Whether some process holds the database's graph-build lock (a build under way or about to be)."""
    return bool(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND ((classid::bigint << 32) | objid::bigint) = %s AND database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database()))",
            (ADVISORY_BUILD,),
        ).fetchone()[0]
    )


def build_progress(conn: Any) -> str | None:
    """The graph build under way on this database, in words (``pg_stat_progress_create_index``), if any."""
    row = conn.execute(
        "SELECT phase, blocks_done, blocks_total, tuples_done, tuples_total FROM pg_stat_progress_create_index "
        "WHERE datname = current_database() AND relid::regclass::text LIKE 'memory_vectors_%%' LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    phase, blocks_done, blocks_total, tuples_done, tuples_total = row
    if tuples_total:
        return f"{phase} ({tuples_done:,} of {tuples_total:,} rows)"
    if blocks_total:
        return f"{phase} ({100 * blocks_done // blocks_total} %)"
    return str(phase)


#: The table settings a background run sets for a while: a build's ``parallel_workers``, a gather's
#: ``autovacuum_enabled`` (``_pg_gather``).
RUN_SETTINGS = "parallel_workers, autovacuum_enabled"
#: A vector table that still carries one of them.
_LEFTOVER = (
    "SELECT 'memory_vectors_' || m.rowid FROM memory_vector_models m "
    "JOIN pg_class c ON c.relname = 'memory_vectors_' || m.rowid "
    "WHERE EXISTS (SELECT 1 FROM unnest(c.reloptions) o "
    "WHERE o LIKE 'parallel_workers=%%' OR o = 'autovacuum_enabled=false')"
)


def leftover_settings(conn: Any) -> list[str]:
    """Vector tables that still carry a run's setting (``RUN_SETTINGS``)."""
    rows = conn.execute(_LEFTOVER).fetchall()
    return [r[0] for r in rows]


#: Whether a store's opening leaves work for the background run (``GraphBuilds.start``): a pending graph
#: (``_pg_ingest.broken_graphs``), a table still carrying a build's ``parallel_workers``
#: (``leftover_settings``: a build's or a gather's), rows stored before their vectors were kept in the row
#: (``_pg_inline``), scopes whose term-count rows wait for their fold (``_pg_term_upkeep``). One statement,
#: where the opening asked the questions one after the other.
UPKEEP_DUE = (
    f"SELECT EXISTS ({BROKEN_GRAPHS_SQL}) "
    f"OR EXISTS ({_LEFTOVER}) "
    f"OR EXISTS ({REWRITE_DUE_SQL}) OR EXISTS ({GATHER_DUE_SQL}) OR EXISTS ({FOLD_DUE_SQL})"
)


def upkeep_due(conn: Any) -> bool:
    """Whether a graph is pending, a build's table setting left over, old rows wait for their
    rewrite or term-count rows for their fold (``UPKEEP_DUE``)."""
    return bool(conn.execute(UPKEEP_DUE, (GRAPH_OPCLASS,)).fetchone()[0])


def tidy(url: str) -> list[str]:
    """Reset the ``parallel_workers`` a build cut off from its process left on its table, when no build
    holds the lock (one that does resets its own); the tables reset."""
    with psycopg.connect(url, autocommit=True) as conn:
        return _tidy_on(conn)


def _tidy_on(conn: Any) -> list[str]:
    """``tidy`` on an autocommit connection outside any transaction."""
    if not _try_lock(conn):
        return []
    try:
        tables = leftover_settings(conn)
        for name in tables:
            conn.execute(f"ALTER TABLE {name} RESET ({RUN_SETTINGS})")
        return tables
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))


@atexit.register
def _stop_all() -> None:
    """At exit, no process waits for a build: cancel the ones under way (pending, built at next open)."""
    running = list(_RUNNING)
    for builds in running:  # first: no look starts a run the cancel below would miss
        builds.stop_watching()
    for builds in running:
        builds.cancel(timeout=5.0)
