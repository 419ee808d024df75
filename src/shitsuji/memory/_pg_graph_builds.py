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
(not one of the pool's: a build holds it for seconds to minutes); and every store that opens a database
with a pending graph (a process that died, a CLI import that ended first). One build at a time per
database (``_pg_ingest.build_lock``); a builder that finds the index valid (built meanwhile by another
process) does nothing. At the process's exit a build still running is cancelled (its index stays invalid:
pending) rather than waited for — a short command never waits for it; the next opening builds it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import psycopg

from ._pg_ingest import ADVISORY_BUILD, broken_graphs, build_graph

log = logging.getLogger(__name__)

_RUNNING: weakref.WeakSet[GraphBuilds] = weakref.WeakSet()


class GraphBuilds:
    """One database's pending graphs built on a background thread, one run at a time."""

    def __init__(self, url: str, create_sql: Callable[[str], str]) -> None:
        self._url = url
        self._create_sql = create_sql  # table name -> its CREATE INDEX statement
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None  # None once a run has decided to end
        self._again = False  # asked to start while a run was under way: it looks again at its end
        self._conn: psycopg.Connection[Any] | None = None
        self._cancelled = False

    def start(self) -> None:
        """Build every pending graph on the background thread (started if none runs)."""
        with self._lock:
            self._cancelled = False
            if self._thread is not None:  # a run under way (or ending after a cancel) looks again at its end
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, name="shitsuji-graph-build", daemon=True)
            _RUNNING.add(self)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background build (if any) to end; whether it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def cancel(self, timeout: float = 10.0) -> None:
        """Cancel a build under way (its index stays pending until ``start`` or the next opening) and
        wait for the thread to let go of its connection."""
        with self._lock:
            self._cancelled = True
            thread, conn = self._thread, self._conn
        if conn is not None:
            try:
                conn.cancel_safe(timeout=timeout)
            except (psycopg.Error, OSError) as exc:
                log.warning("graph build: cancel failed: %s", exc)
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
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
                    return
                self._again = False

    def _build(self, conn: Any) -> None:
        if not broken_graphs(conn):
            return
        while not conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_BUILD,)).fetchone()[0]:
            if self._cancelled:  # another process builds: polled (see ``build_lock``), given up on cancel
                return
            time.sleep(0.2)
        try:
            for name in broken_graphs(conn):
                if self._cancelled:
                    return
                dim, rows = conn.execute(
                    f"SELECT m.dim, (SELECT count(*) FROM {name} WHERE graph) FROM memory_vector_models m "
                    "WHERE 'memory_vectors_' || m.rowid = %s",
                    (name,),
                ).fetchone()
                build_graph(
                    conn, name, self._create_sql(name), 2 * int(rows), int(dim)
                )  # as the fold sized it
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_BUILD,))


@atexit.register
def _stop_all() -> None:
    """At exit, no process waits for a build: cancel the ones under way (pending, built at next open)."""
    for builds in list(_RUNNING):
        builds.cancel(timeout=5.0)
