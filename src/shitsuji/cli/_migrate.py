"""``shitsuji migrate``: copy the --db SQLite database (and its LINE inbox) into PostgreSQL, or back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from ..errors import StoreError, UserInputError
from ._app import STATE, JsonFlag, app, console, err_console, print_json

if TYPE_CHECKING:  # the copier loads when the command runs: listing the commands stays quick
    from ..store import Schema
    from ..store._copy import CopyReport, Part


def _schemas() -> tuple[tuple[Schema, ...], Schema]:
    """Every package's schema in the shitsuji database, and the LINE inbox's (a file of its own on SQLite)."""
    from ..agent import AGENT_SCHEMA
    from ..audit import AUDIT_SCHEMA
    from ..household import HOUSEHOLD_SCHEMA
    from ..line import LINE_INBOX_SCHEMA, LINE_SCHEMA
    from ..memory._schema import MEMORY_SCHEMA
    from ..schedule import SCHEDULE_SCHEMA
    from ..web._schema import WEB_SCHEMA

    return (
        MEMORY_SCHEMA,
        AGENT_SCHEMA,
        HOUSEHOLD_SCHEMA,
        WEB_SCHEMA,
        AUDIT_SCHEMA,
        LINE_SCHEMA,
        SCHEDULE_SCHEMA,
    ), LINE_INBOX_SCHEMA


def _reachable(url: str) -> None:
    """Fail in one line, password left out, when the URL is malformed or the server does not answer."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        from ..store import redact

        raise StoreError(f"cannot reach PostgreSQL at {redact(url)}: {reason}") from exc


@app.command()
def migrate(
    to: Annotated[
        str | None,
        typer.Option(
            "--to", help="postgresql://… : copy the --db SQLite database (and its LINE inbox) there."
        ),
    ] = None,
    from_: Annotated[
        str | None,
        typer.Option("--from", help="postgresql://… : copy that database back into the --db SQLite file."),
    ] = None,
    batch_size: Annotated[
        int,
        typer.Option("--batch-size", min=1, max=100000, help="Rows per transaction (and per resume step)."),
    ] = 1000,
    as_json: JsonFlag = False,
) -> None:
    """Copy every table between the SQLite file and PostgreSQL, verified by counts and checksums.

    The target must hold no shitsuji rows; a copy that was interrupted is resumed by running the same
    command again. Stop serve and the workers first: rows written during the copy fail verification.
    """
    from ..store._copy import copy_database, where

    parts = _parts(to, from_)
    _reachable(to or from_ or "")

    def say(table: str, copied: int) -> None:
        if copied and not as_json:
            err_console.print(f"{table}: {copied:,} rows copied")

    report = copy_database(parts, batch_size=batch_size, on_table=say)
    if report.ok and to is not None:
        # the vector index rows are derived, not copied: the first store to open the database
        # derives them; doing it here means the first recall after the move is not the one to wait
        from ..memory import open_store

        open_store(to).close()
    _show(report, where(parts[0].source), where(parts[0].target), as_json)
    if not report.ok:
        raise typer.Exit(1)


def _parts(to: str | None, from_: str | None) -> list[Part]:
    """The shitsuji database and its LINE inbox file, each with where it goes."""
    from ..line import inbox_path
    from ..store import is_postgres
    from ..store._copy import Part

    if (to is None) == (from_ is None):
        raise UserInputError("say where to copy: --to postgresql://… or --from postgresql://…")
    url = to or from_ or ""
    if not is_postgres(url):
        flag = "--to" if to is not None else "--from"
        raise UserInputError(f"{flag} needs a postgresql:// URL (got {url.split(':')[0]!r})")
    db = str(STATE.settings().db)
    main, inbox = _schemas()
    if from_ is not None:
        return [Part(url, db, main), Part(url, inbox_path(db), (inbox,))]
    if not STATE.settings().db.exists():
        raise StoreError(f"no shitsuji database at {db}: point --db (or SHITSUJI_DB) at it")
    return [Part(db, url, main), Part(inbox_path(db), url, (inbox,), optional=True)]


def _show(report: CopyReport, source: str, target: str, as_json: bool) -> None:
    rate = report.copied / report.seconds if report.seconds > 0 else 0.0
    if as_json:
        print_json(
            {
                "source": source,
                "target": target,
                "ok": report.ok,
                "resumed": report.resumed,
                "copied": report.copied,
                "seconds": round(report.seconds, 3),
                "rows_per_second": round(rate),
                "tables": [t.to_json() for t in report.tables],
            }
        )
        return
    table = Table("table", "source rows", "target rows", "checksum", box=None, pad_edge=False)
    for t in report.tables:
        table.add_row(
            t.table, f"{t.source_rows:,}", f"{t.target_rows:,}", "match" if t.match else "[red]DIFFERS[/]"
        )
    console.print(table)
    verdict = (
        "verified"
        if report.ok
        else "[red]NOT verified[/]: the tables marked DIFFERS changed during the copy? "
        "Stop serve and the workers, then copy again into a new, empty database"
    )
    resumed = " (resumed)" if report.resumed else ""
    console.print(
        f"{source} → {target}{resumed}: {report.copied:,} rows in {report.seconds:.1f} s ({rate:,.0f} rows/s), {verdict}"
    )
