"""export and import: JSONL round-trips of memory rows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from ..errors import UserInputError
from ..memory import export_lines, import_file
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
    lines = export_lines(STATE.engine().list_memories(scope))
    if output is None:
        for line in lines:
            sys.stdout.write(line + "\n")
        return
    count = 0
    with output.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
            count += 1
    err_console.print(f"exported {count} memories to {output}")


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="JSONL file ('-' for stdin): content and scope per line.")],
    no_index: Annotated[bool, typer.Option("--no-index", help="Store rows only; embed later.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Import memories from JSONL; exact duplicates in the same scope are skipped."""
    engine = STATE.engine()
    if str(file) == "-":
        handle = sys.stdin
    else:
        try:
            handle = file.open(encoding="utf-8")
        except OSError as exc:
            raise UserInputError(f"cannot read {file}: {exc.strerror}") from exc
    with handle, Progress(console=err_console, disable=as_json, transient=True) as bar:
        task = bar.add_task("embedding", total=None)
        report = import_file(
            engine, handle, index=not no_index, progress=lambda d, t: bar.update(task, completed=d, total=t)
        )
    data = {
        "read": report.read,
        "added": report.added,
        "duplicates": report.duplicates,
        "indexed": report.indexed,
    }
    if as_json:
        print_json(data)
    else:
        console.print(
            f"imported {report.added} memories ({report.duplicates} duplicates skipped, {report.indexed} embedded)"
        )
