"""export and import: JSONL round-trips of memory rows."""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.progress import Progress

from ..errors import UserInputError
from ._app import STATE, JsonFlag, app, console, err_console, print_json


@app.command()
def export(
    scope: Annotated[
        str | None, typer.Option("--scope", "-s", help="Only this scope and those below it.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Write memories as JSONL (one object per line), the shape `import` reads."""
    STATE.require_database()
    if output is not None:
        _check_target(output)
    from ..memory import export_lines

    lines = export_lines(STATE.engine().list_memories(scope))
    if output is None:
        for line in lines:
            sys.stdout.write(line + "\n")
        return
    count = 0
    # Written beside the target and renamed over it at the end: a failure leaves any old file whole.
    fd, temp = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".part", dir=output.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(line + "\n")
                count += 1
        os.replace(temp, output)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    err_console.print(f"exported {count} memories to {output}")


def _check_target(output: Path) -> None:
    if output.is_dir():
        raise UserInputError(
            f"cannot export to {output}: it is a folder; name a file, e.g. {output / 'memories.jsonl'}"
        )
    if not output.parent.is_dir():
        raise UserInputError(
            f"cannot export to {output}: the folder {output.parent} does not exist; create it first"
        )
    if not os.access(output.parent, os.W_OK):
        raise UserInputError(f"cannot export to {output}: the folder {output.parent} is not writable")


#: ``import``'s word when a large scope's vector graph is left to build (PostgreSQL, ``_pg_graph_builds``).
GRAPH_PENDING = (
    "the vector search graph of the large scopes is built in the background by the next long-running "
    "process that opens this database (`shitsuji serve`), or now by `shitsuji reindex --graph-only`; until "
    "then their searches compare every vector — the same results, slower"
)


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="JSONL file ('-' for stdin): content and scope per line.")],
    no_index: Annotated[bool, typer.Option("--no-index", help="Store rows only; embed later.")] = False,
    wait_graph: Annotated[
        bool,
        typer.Option("--wait-graph", help="Wait for the vector search graph to be built (PostgreSQL)."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Import memories from JSONL; exact duplicates in the same scope are skipped."""
    from ..memory import import_items, parse_lines
    from ._graph import wait_for_graph

    engine = STATE.engine()
    handle: TextIO
    if str(file) == "-":
        raw = getattr(sys.stdin, "buffer", None)  # bytes that are not UTF-8 reach parse_lines as surrogates
        handle = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape") if raw else sys.stdin
    else:
        try:
            handle = file.open(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise UserInputError(f"cannot read {file}: {exc.strerror}") from exc
    with handle:
        items = parse_lines(handle)  # before the progress bar: a bad line is one line on stderr
    with Progress(console=err_console, disable=as_json, transient=True) as bar:
        task = bar.add_task("embedding", total=None)
        report = import_items(
            engine, items, index=not no_index, progress=lambda d, t: bar.update(task, completed=d, total=t)
        )
    data = {
        "read": report.read,
        "added": report.added,
        "duplicates": report.duplicates,
        "indexed": report.indexed,
        "graph_pending": report.graph_pending,
    }
    if not as_json:
        console.print(
            f"imported {report.added} memories ({report.duplicates} duplicates skipped, {report.indexed} embedded)"
        )
    if wait_graph:
        data.update(wait_for_graph(engine.store, quiet=as_json))
    if as_json:
        print_json(data)
    elif data["graph_pending"]:
        console.print(GRAPH_PENDING)
