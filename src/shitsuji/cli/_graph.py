"""Waiting for the vector search graph from the command line (``import --wait-graph``, ``reindex --graph-only``).

Why: on PostgreSQL a bulk load returns before its HNSW graph is built; the build runs on a background thread
of a process that writes to the database (or ``serve``), and a process that exits cancels it (``memory._pg_graph_builds``).
A database only ever opened by short commands would keep its graph pending — searches exact but full scans.
These options keep the command running until the build is done, saying what it does; Ctrl-C cancels the
build cleanly and leaves the graph pending (still correct, built by the next opening).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from ._app import console, err_console

#: How often the progress line is refreshed while the build runs.
_POLL_S = 1.0
#: How often the wait looks whether Ctrl-C was pressed.
_TICK_S = 0.2
#: The longest Ctrl-C waits for this process's build to stop before the command exits anyway.
_CANCEL_S = 10.0


def wait_for_graph(store: Any, *, quiet: bool = False) -> dict[str, Any]:
    """Build the pending graphs (PostgreSQL) and wait for them, with the rest of the background upkeep
    opening found due (vector rows to rewrite or gather, term counts to fold) — also when no graph is
    pending, so a database only short commands open can be brought up to date; what happened, for ``--json``.

    Exits 130 on Ctrl-C (the build cancelled, the graph pending) and 1 when the build stopped without
    finishing (the server went away: the reason is in the log).

    Ctrl-C only sets a flag while the command waits (no ``KeyboardInterrupt`` raised wherever the main
    thread happens to be: inside a query, a pool's or a lock's bookkeeping, it could leave a lock taken
    that the cancel then waited on for good); the wait loop sees it within ``_TICK_S``, cancels this
    process's build, waits at most ``_CANCEL_S`` for it, and exits — whoever else builds or holds back
    the build (another process's build, an old snapshot).
    """
    if not hasattr(store, "build_graphs") or not store.upkeep_pending():
        return {"graph_built": False, "graph_pending": False}  # SQLite, or nothing to do
    graph = (
        store.graphs_pending()
    )  # else only the rest of the upkeep: rows to rewrite or gather, counts to fold
    what = "the vector search graph" if graph else "the background upkeep (vector rows, term counts)"
    started = time.monotonic()
    store.build_graphs()
    if not quiet:
        err_console.print(f"building {what} (Ctrl-C stops; what is left stays pending)")
    stop, stopped = threading.Event(), True
    with _ctrl_c_sets(stop):
        try:
            with err_console.status(f"building {what}…") as status:
                shown = 0.0
                while not stop.is_set() and not store.wait_for_graphs(_TICK_S):
                    if time.monotonic() - shown >= _POLL_S and not stop.is_set():
                        shown = time.monotonic()
                        progress = store.graph_progress()
                        status.update(f"building {what}: {progress}" if progress else f"building {what}…")
        except KeyboardInterrupt:  # the flag could not be set up (not the main thread)
            stop.set()
        if stop.is_set():
            stopped = store.cancel_graphs(_CANCEL_S)  # a second Ctrl-C meanwhile changes nothing
    if stop.is_set():
        err_console.print(
            (
                "graph build cancelled: the graph stays pending — searches give the same results, slower; "
                "run `shitsuji reindex --graph-only` again to build it"
                if graph
                else "upkeep cancelled: what is left stays pending (the same results, slower); "
                "run `shitsuji reindex --graph-only` again to finish it"
            )
            + ("" if stopped else " (the build did not stop in time: the exit cancels it)")
        )
        raise typer.Exit(130)
    if store.graphs_pending():
        err_console.print(
            "the vector search graph was not built (the database connection ended?): it stays pending; "
            "run `shitsuji reindex --graph-only` again"
        )
        raise typer.Exit(1)
    seconds = time.monotonic() - started
    if not graph:
        if not quiet:
            console.print(f"background upkeep done in {seconds:.1f} s (no vector search graph was pending)")
        return {"graph_built": False, "graph_pending": False, "upkeep_s": round(seconds, 2)}
    if not quiet:
        console.print(f"vector search graph built in {seconds:.1f} s")
    return {"graph_built": True, "graph_pending": False, "graph_s": round(seconds, 2)}


@contextmanager
def _ctrl_c_sets(stop: threading.Event) -> Iterator[None]:
    """Within the block, Ctrl-C (SIGINT) sets ``stop`` instead of raising ``KeyboardInterrupt``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
