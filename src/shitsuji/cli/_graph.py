"""Waiting for the vector search graph from the command line (``import --wait-graph``, ``reindex --graph-only``).

Why: on PostgreSQL a bulk load returns before its HNSW graph is built; the build runs on a background thread
of the process that opened the database, and a process that exits cancels it (``memory._pg_graph_builds``).
A database only ever opened by short commands would keep its graph pending — searches exact but full scans.
These options keep the command running until the build is done, saying what it does; Ctrl-C cancels the
build cleanly and leaves the graph pending (still correct, built by the next opening).
"""

from __future__ import annotations

import time
from typing import Any

import typer

from ._app import console, err_console

#: How often the progress line is refreshed while the build runs.
_POLL_S = 1.0


def wait_for_graph(store: Any, *, quiet: bool = False) -> dict[str, Any]:
    """Build the pending graphs (PostgreSQL) and wait for them; what happened, for ``--json``.

    Exits 130 on Ctrl-C (the build cancelled, the graph pending) and 1 when the build stopped without
    finishing (the server went away: the reason is in the log).
    """
    if not hasattr(store, "build_graphs") or not store.graphs_pending():
        return {"graph_built": False, "graph_pending": False}  # SQLite, or nothing to build
    started = time.monotonic()
    store.build_graphs()
    if not quiet:
        err_console.print("building the vector search graph (Ctrl-C stops; the graph then stays pending)")
    try:
        with err_console.status("building the vector search graph…") as status:
            while not store.wait_for_graphs(_POLL_S):
                progress = store.graph_progress()
                status.update(
                    f"building the vector search graph: {progress}"
                    if progress
                    else "starting the vector search graph's build…"
                )
    except KeyboardInterrupt:
        store.cancel_graphs()
        err_console.print(
            "graph build cancelled: the graph stays pending — searches give the same results, slower; "
            "run `shitsuji reindex --graph-only` again to build it"
        )
        raise typer.Exit(130) from None
    if store.graphs_pending():
        err_console.print(
            "the vector search graph was not built (the database connection ended?): it stays pending; "
            "run `shitsuji reindex --graph-only` again"
        )
        raise typer.Exit(1)
    seconds = time.monotonic() - started
    if not quiet:
        console.print(f"vector search graph built in {seconds:.1f} s")
    return {"graph_built": True, "graph_pending": False, "graph_s": round(seconds, 2)}
