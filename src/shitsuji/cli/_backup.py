"""``shitsuji backup FILE`` and ``shitsuji restore-backup FILE``: everything shitsuji keeps, in one file.

(``restore ID`` already brings a forgotten memory back; a whole backup is ``restore-backup``.)

A backup is a SQLite file holding every package's tables — memories and their vectors, accounts,
households and their lists, conversations, cards, the audit log, LINE links — and the LINE inbox
(a file of its own beside a SQLite database, a table of the same database on PostgreSQL), so one
file is all there is to keep. It is written through the copy ``migrate`` uses (every table by
column name, verified by row counts and checksums), beside FILE and renamed over it only once
verified, and never onto a file that exists.

While ``serve`` runs, a SQLite database is first read through SQLite's online backup (one
consistent moment of the file, taken without stopping the writers), and the copy is made from
that. A PostgreSQL database is copied table by table; when a row changes during the copy the
checksums say so and the copy is taken again (a few tries), so a backup that is written is
always consistent. For very large PostgreSQL databases, ``pg_dump`` is the tool (README).

``restore-backup`` copies a backup into the database the global options name (the ``--db`` file and its
inbox, or ``--database-url``), which must be empty, then derives what is derived (the vector
index rows of PostgreSQL).
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import StoreError, UserInputError
from ._app import STATE, JsonFlag, app, console, err_console, print_json

TRIES = 3  # copies of a PostgreSQL database taken before a backup gives up (rows kept changing)

BackupFile = Annotated[Path, typer.Argument(help="The backup file (a SQLite file holding everything).")]


@app.command()
def backup(file: BackupFile, as_json: JsonFlag = False) -> None:
    """Write everything (all tables, the LINE inbox) to FILE, verified; safe while serve runs."""
    from ..store._copy import TableCheck

    STATE.require_database()
    target = file.expanduser()
    if target.exists():
        raise UserInputError(f"{target} exists: a backup never overwrites a file; choose a new name")
    if not target.parent.is_dir():
        raise UserInputError(f"no folder {target.parent}: create it first")
    settings = STATE.settings()
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    checks: list[TableCheck] = []
    try:
        for attempt in range(1, TRIES + 1):
            checks = _backup_into(settings.database, str(partial))
            if all(c.match for c in checks):
                break
            partial.unlink(missing_ok=True)
            err_console.print(f"rows changed during copy {attempt} of {TRIES}: taking it again")
        else:
            raise StoreError(
                f"the database kept changing during {TRIES} copies: nothing was written to {target}"
            )
        _one_file(partial)
        _integrity(partial)
        os.chmod(partial, 0o600)
        partial.rename(target)
    finally:
        partial.unlink(missing_ok=True)
    _report("backup", str(target), checks, as_json)


@app.command("restore-backup")
def restore_backup(file: BackupFile, as_json: JsonFlag = False) -> None:
    """Copy a backup FILE into the (empty) database named by --db or --database-url, verified."""
    from ..store._copy import Part, copy_database

    source = file.expanduser()
    if not source.is_file():
        raise UserInputError(f"no backup at {source}")
    _integrity(source)
    settings = STATE.settings()
    target = settings.database
    main, inbox = _schemas()
    parts = [Part(str(source), target, main), Part(str(source), _inbox(target), (inbox,))]
    report = copy_database(parts)
    if report.ok:
        from ..memory import open_store

        open_store(target).close()  # the derived rows (PostgreSQL's vector index) are made now
    _report("restore", target, report.tables, as_json)
    if not report.ok:
        raise typer.Exit(1)


def _backup_into(database: str, into: str) -> list[Any]:
    """Copy ``database`` (and its inbox) into the SQLite file ``into``; the verification of each table."""
    from ..store import is_postgres
    from ..store._copy import Part, copy_database

    main, inbox = _schemas()
    if is_postgres(database):
        parts = [Part(database, into, main), Part(database, into, (inbox,))]
        return copy_database(parts).tables
    with tempfile.TemporaryDirectory(prefix="shitsuji-backup-", dir=Path(into).parent) as tmp:
        moment = str(Path(tmp) / "moment.db")
        _online_copy(database, moment)
        inbox_moment = f"{moment}-line-inbox"
        has_inbox = Path(_inbox(database)).exists()
        if has_inbox:
            _online_copy(_inbox(database), inbox_moment)
        parts = [Part(moment, into, main), Part(inbox_moment, into, (inbox,), optional=not has_inbox)]
        return copy_database(parts).tables


def _online_copy(path: str, into: str) -> None:
    """SQLite's online backup: the file as it is at one moment, while other processes write."""
    source = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    target = sqlite3.connect(into)
    try:
        source.backup(target)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read {path} for the backup: {exc}") from exc
    finally:
        target.close()
        source.close()


def _one_file(path: Path) -> None:
    """Fold the write-ahead log into the file and leave rollback-journal mode: the backup is one file
    that can be copied, mailed or restored on its own."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
    finally:
        conn.close()
    if mode != "delete":
        raise StoreError(f"cannot finish the backup {path}: its write-ahead log is still in use")


def _integrity(path: Path) -> None:
    """A backup must be a whole SQLite file that shitsuji wrote."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
            shitsuji = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise UserInputError(f"{path} is not a shitsuji backup (not a SQLite file: {exc})") from exc
    if verdict != "ok":
        raise StoreError(f"{path} is damaged: SQLite's integrity check says {verdict!r}")
    if shitsuji is None:
        raise UserInputError(f"{path} is not a shitsuji backup (it has no shitsuji tables)")


def _inbox(database: str) -> str:
    from ..line import inbox_path

    return inbox_path(database)


def _schemas() -> tuple[tuple[Any, ...], Any]:
    from ._migrate import _schemas as every_schema

    return every_schema()


def _report(verb: str, where: str, checks: list[Any], as_json: bool) -> None:
    rows = sum(c.target_rows for c in checks)
    if as_json:
        print_json(
            {
                "ok": all(c.match for c in checks),
                "where": where,
                "rows": rows,
                "tables": [c.to_json() for c in checks],
            }
        )
        return
    differ = [c.table for c in checks if not c.match]
    if differ:
        err_console.print(
            f"[red]error:[/] {verb} to {where} NOT verified: {', '.join(differ)} differ", soft_wrap=True
        )
        return
    filled = sum(1 for c in checks if c.target_rows)
    console.print(f"{verb}: {rows:,} rows in {filled} tables → {where}, verified by counts and checksums")
