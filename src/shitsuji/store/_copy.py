"""Copy a shitsuji database from one engine to the other (``shitsuji migrate``): SQLite → PostgreSQL
when a household outgrows one machine, PostgreSQL → SQLite to come back.

The target is created the way every store creates it — opened with each package's ``Schema``, so
its ``schema_migrations`` say the same as a database that grew there — and must hold no shitsuji
rows yet (the rows a migration seeds itself, like ``index_state``, don't count): a copy never
merges into or overwrites data. Tables are copied in foreign-key order, by column name (the
columns both sides have; a column only the target has, like a generated count, is left to
the target's own store), in batches ordered by the row key, keeping every ``rowid``. On
PostgreSQL the identity sequences are moved past the copied keys afterwards, so new rows don't
collide.

Each batch is written in one transaction together with its row of ``copy_progress`` (source,
table, last key, rows copied) in the target. A copy killed at any point is resumed by running it
again: it goes on after the last committed key, so nothing is copied twice and nothing is
skipped. Once every table is verified the progress table is dropped.

Verification reads both sides again: per table, the row count and a SHA-256 over the rows in
key order, each value encoded by kind (integer, float by ``repr``, text, bytes, null), so SQLite
and PostgreSQL give the same digest for the same data.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError, StoreLockedError
from ._database import Database, PostgresDatabase, is_postgres, open_database, redact, to_postgres
from ._migrations import Schema, postgres_ddl

PROGRESS = "copy_progress"
_COPY_LOCK = 0x5348_4943  # pg_try_advisory_lock key: one copy into a PostgreSQL database at a time
_CHECK_BATCH = 5000
_PROGRESS_DDL = f"""CREATE TABLE IF NOT EXISTS {PROGRESS} (
    source TEXT NOT NULL,
    table_name TEXT NOT NULL,
    last_key INTEGER,
    copied INTEGER NOT NULL,
    PRIMARY KEY (source, table_name)
)"""
_SAVE_PROGRESS = (
    f"INSERT INTO {PROGRESS} (source, table_name, last_key, copied) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (source, table_name) DO UPDATE SET last_key = excluded.last_key, copied = excluded.copied"
)


class TargetNotEmptyError(StoreError):
    """The target already holds shitsuji rows (or another source's unfinished copy)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One source database, where its tables go, and the packages whose tables it has."""

    source: str  # a SQLite path or a postgresql:// URL
    target: str
    schemas: tuple[Schema, ...]
    optional: bool = False  # a missing source file counts as empty (the LINE inbox before LINE was used)


@dataclass(frozen=True, slots=True)
class TableCheck:
    table: str
    source_rows: int
    target_rows: int
    source_checksum: str
    target_checksum: str
    copied: int  # rows written by this run (0 for a table finished before a resume)

    @property
    def match(self) -> bool:
        return self.source_rows == self.target_rows and self.source_checksum == self.target_checksum

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "source_rows": self.source_rows,
            "target_rows": self.target_rows,
            "source_checksum": self.source_checksum,
            "target_checksum": self.target_checksum,
            "copied": self.copied,
            "match": self.match,
        }


@dataclass(frozen=True, slots=True)
class CopyReport:
    tables: list[TableCheck]
    seconds: float  # copying (verification not included)
    resumed: bool

    @property
    def ok(self) -> bool:
        return all(t.match for t in self.tables)

    @property
    def copied(self) -> int:
        return sum(t.copied for t in self.tables)


@dataclass(frozen=True, slots=True)
class _Table:
    name: str
    key: str  # the INTEGER PRIMARY KEY, else SQLite's rowid (a column of its own on PostgreSQL)
    seeded: int = 0  # rows its migrations insert (index_state's one)


def where(target: str) -> str:
    """How a database is named in messages and in ``copy_progress``: an absolute path, or the URL
    without its password."""
    return redact(target) if is_postgres(target) else str(Path(target).expanduser().resolve())


def copy_database(
    parts: Sequence[Part],
    *,
    batch_size: int = 1000,
    on_table: Callable[[str, int], None] | None = None,
) -> CopyReport:
    """Copy every part's tables into its target (resuming an interrupted copy), then verify them."""
    with ExitStack() as held:
        for url in sorted({p.target for p in parts if is_postgres(p.target)}):
            held.enter_context(_one_copy_at_a_time(url))
        _refuse_non_empty(parts)
        opened: list[Database] = []
        held.callback(_close_all, opened)
        report = _copy_parts(parts, opened, batch_size, on_table)
    return report


def _copy_parts(
    parts: Sequence[Part],
    opened: list[Database],
    batch_size: int,
    on_table: Callable[[str, int], None] | None,
) -> CopyReport:
    started = time.perf_counter()
    targets: dict[str, Database] = {}
    plans: list[_Plan] = []
    for part in parts:
        source = _open_source(part)
        opened.append(source)
        target = open_database(part.target, *part.schemas)  # creates or migrates its tables
        opened.append(target)
        targets.setdefault(part.target, target)
        plans.append(_Plan(source, target, where(part.source), layout(part.schemas)))
    resumed = any([_start_progress(target) for target in targets.values()])
    copied: dict[str, int] = {}
    for plan in plans:
        copied.update(_copy_plan(plan, batch_size, on_table))
    seconds = time.perf_counter() - started
    checks = [_check(p.source, p.target, t, copied[t.name]) for p in plans for t in p.tables]
    if all(c.match for c in checks):  # done: the target no longer looks like an unfinished copy
        for target in targets.values():
            with target.write() as tx:
                tx.execute(f"DROP TABLE {PROGRESS}")
    return CopyReport(checks, seconds, resumed)


@dataclass(frozen=True, slots=True)
class _Plan:
    source: Database
    target: Database
    name: str  # the source as copy_progress names it
    tables: list[_Table]


def _copy_plan(plan: _Plan, batch_size: int, on_table: Callable[[str, int], None] | None) -> dict[str, int]:
    """Copy the plan's tables in order; how many rows each got now."""
    copied: dict[str, int] = {}
    for table in plan.tables:
        with _named(table.name, plan.target):
            copied[table.name] = _copy_table(plan.source, plan.target, plan.name, table, batch_size)
        if on_table is not None:
            on_table(table.name, copied[table.name])
    if isinstance(plan.target, PostgresDatabase):
        _move_sequences(plan.target, plan.tables)
    return copied


def _close_all(opened: list[Database]) -> None:
    for db in opened:
        db.close()


@contextmanager
def _one_copy_at_a_time(url: str) -> Iterator[None]:
    """Hold a session lock on the target for the whole copy: a second ``migrate`` into it stops at once."""
    with PostgresDatabase(url).connection() as conn:
        if not conn.execute("SELECT pg_try_advisory_lock(%s)", (_COPY_LOCK,)).fetchone()[0]:
            raise StoreLockedError(f"another shitsuji migrate is copying into {redact(url)}: let it finish")
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_COPY_LOCK,))


@contextmanager
def _named(table: str, target: Database) -> Iterator[None]:
    """A row the target refuses (a constraint, a value its type cannot hold) becomes one clear line."""
    import psycopg

    try:
        yield
    except (sqlite3.Error, psycopg.Error) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreError(f"copying {table} into {target.where} failed: {reason}") from exc


def _start_progress(target: Database) -> bool:
    """Create the progress table if needed; say whether it already had rows (a resumed copy)."""
    with target.write() as tx:
        tx.execute(_PROGRESS_DDL if target.dialect == "sqlite" else postgres_ddl(_PROGRESS_DDL))
        return tx.execute(f"SELECT 1 FROM {PROGRESS}").fetchone() is not None


def _open_source(part: Part) -> Database:
    if not is_postgres(part.source) and not Path(part.source).expanduser().exists():
        if not part.optional:
            raise StoreError(f"no shitsuji database at {part.source}: point --db (or SHITSUJI_DB) at it")
        return open_database(":memory:", *part.schemas)
    return open_database(part.source, *part.schemas)


# --- what is copied -----------------------------------------------------------------------------


def layout(schemas: Iterable[Schema]) -> list[_Table]:
    """The packages' tables, parents before the tables whose foreign keys point at them, each with
    the key it is copied by (read from a fresh in-memory SQLite database with those schemas)."""
    fresh = open_database(":memory:", *schemas)
    try:
        names = sorted(
            row[0]
            for row in fresh.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if row[0] != "schema_migrations" and not row[0].startswith("sqlite_")
        )
        parents = {
            name: {row[2] for row in fresh.execute(f"PRAGMA foreign_key_list({_q(name)})")} - {name}
            for name in names
        }
        tables: list[_Table] = []
        while len(tables) < len(names):
            done = {t.name for t in tables}
            ready = [n for n in names if n not in done and parents[n] <= done]
            if not ready:
                raise StoreError(f"foreign keys form a cycle among {sorted(set(names) - done)}")
            tables.extend(
                _Table(
                    n, _integer_key(fresh, n), fresh.execute(f"SELECT count(*) FROM {_q(n)}").fetchone()[0]
                )
                for n in ready
            )
        return tables
    finally:
        fresh.close()


def _integer_key(db: Database, table: str) -> str:
    keys = [row for row in db.execute(f"PRAGMA table_info({_q(table)})") if row[5]]
    if len(keys) == 1 and str(keys[0][2]).upper() == "INTEGER":
        return str(keys[0][1])
    return "rowid"


def columns(db: Database | sqlite3.Connection, dialect: str, table: str) -> list[str]:
    """The table's columns a copy may write ([] when it does not exist): generated ones left out."""
    if dialect == "sqlite":
        return [str(row[1]) for row in db.execute(f"PRAGMA table_info({_q(table)})")]
    rows = db.execute(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER' "
        "ORDER BY ordinal_position",
        (table,),
    )
    return [str(row[0]) for row in rows]


def _shared(source: Database, target: Database, table: _Table) -> list[str]:
    """The key, then every other column both sides have, in the source's order."""
    wanted = set(columns(target, target.dialect, table.name))
    return [table.key] + [
        c for c in columns(source, source.dialect, table.name) if c != table.key and c in wanted
    ]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- the target must be empty -------------------------------------------------------------------


def _refuse_non_empty(parts: Sequence[Part]) -> None:
    """Raise unless every target is empty of shitsuji rows or holds only our own unfinished copy;
    nothing is written to look."""
    by_target: dict[str, list[Part]] = {}
    for part in parts:
        by_target.setdefault(part.target, []).append(part)
    for target, its_parts in by_target.items():
        reader, dialect, close = _read_only(target)
        if reader is None:
            continue
        try:
            ours = {where(p.source) for p in its_parts}
            if columns(reader, dialect, PROGRESS):
                others = {row[0] for row in reader.execute(f"SELECT DISTINCT source FROM {PROGRESS}")}
                if others - ours:
                    raise TargetNotEmptyError(
                        f"{where(target)} holds an unfinished copy from {', '.join(sorted(others - ours))}: "
                        "finish it with that source, or use an empty database"
                    )
                continue  # our own copy, interrupted: resume it
            schemas = [s for p in its_parts for s in p.schemas]
            full = [f"{t}: {n} rows" for t, n in _filled(reader, dialect, schemas)]
            if full:
                raise TargetNotEmptyError(
                    f"{where(target)} already holds shitsuji data ({', '.join(full[:4])}"
                    f"{', …' if len(full) > 4 else ''}): nothing was copied; migrate into an empty database"
                )
        finally:
            close()


def _read_only(target: str) -> tuple[Any, str, Callable[[], None]]:
    if is_postgres(target):
        db = PostgresDatabase(target)
        return db, "postgresql", db.close
    path = Path(target).expanduser()
    if not path.exists():
        return None, "sqlite", lambda: None
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    return conn, "sqlite", conn.close


def _filled(reader: Any, dialect: str, schemas: list[Schema]) -> list[tuple[str, int]]:
    """The tables holding rows other than those their migrations seed (in a fresh database)."""
    fresh = open_database(":memory:", *schemas)
    try:
        full = []
        for table in layout(schemas):
            fresh_names = columns(fresh, "sqlite", table.name)
            names = [c for c in columns(reader, dialect, table.name) if c in fresh_names]
            if not names:
                continue
            select = f"SELECT {', '.join(map(_q, names))} FROM {_q(table.name)} ORDER BY {_q(table.key)}"
            seeded = [tuple(r) for r in fresh.execute(select)]
            rows = [tuple(r) for r in reader.execute(f"{select} LIMIT {len(seeded) + 1}")]
            if rows and rows != seeded:
                count = reader.execute(f"SELECT count(*) FROM {_q(table.name)}").fetchone()[0]
                full.append((table.name, int(count)))
        return full
    finally:
        fresh.close()


# --- copying ------------------------------------------------------------------------------------


def _copy_table(source: Database, target: Database, name: str, table: _Table, batch_size: int) -> int:
    """Copy the rows after the last committed key; return how many this call wrote."""
    names = _shared(source, target, table)
    extra_rowid = (
        isinstance(target, PostgresDatabase)
        and table.key != "rowid"
        and "rowid" in columns(target, target.dialect, table.name)
    )
    into = names + (["rowid"] if extra_rowid else [])  # PostgreSQL's rowid gets SQLite's
    progress = target.execute(
        f"SELECT last_key, copied FROM {PROGRESS} WHERE source = ? AND table_name = ?", (name, table.name)
    ).fetchone()
    started = progress is not None
    last, copied = progress if started else (None, 0)
    if not started:  # the first batch replaces what the migrations seeded: nothing else may be there
        there = target.execute(f"SELECT count(*) FROM {_q(table.name)}").fetchone()[0]
        if there > table.seeded:
            raise TargetNotEmptyError(
                f"{target.where}: {table.name} got {there} rows from elsewhere during the copy "
                "(was serve started on it?): copy again into a new, empty database"
            )
    select = f"SELECT {', '.join(map(_q, names))} FROM {_q(table.name)}"
    order = f" ORDER BY {_q(table.key)} LIMIT ?"
    wrote = 0
    while True:
        if last is None:
            rows = source.execute(select + order, (batch_size,)).fetchall()
        else:
            rows = source.execute(f"{select} WHERE {_q(table.key)} > ?{order}", (last, batch_size)).fetchall()
        if started and not rows:
            return wrote
        batch = [(*r, r[0]) if extra_rowid else tuple(r) for r in rows]
        if batch:
            last = batch[-1][0]
        copied += len(batch)
        mark = (name, table.name, last, copied)
        _write_batch(target, table.name, into, batch, mark, first=not started)
        started = True
        wrote += len(batch)


def _write_batch(
    target: Database,
    table: str,
    into: list[str],
    rows: list[tuple[Any, ...]],
    mark: tuple[Any, ...],
    *,
    first: bool,
) -> None:
    """One transaction: the rows and the progress row that says they are there. The first batch of
    a table also clears the rows its migrations seeded (the source has its own)."""
    cols = ", ".join(map(_q, into))
    if isinstance(target, PostgresDatabase):
        with target.connection() as conn, conn.transaction():
            if first:
                conn.execute(f"DELETE FROM {_q(table)}")
            if rows:
                with conn.cursor().copy(f"COPY {_q(table)} ({cols}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            conn.execute(to_postgres(_SAVE_PROGRESS), mark)
        return
    with target.write() as tx:
        if first:
            tx.execute(f"DELETE FROM {_q(table)}")
        tx.executemany(f"INSERT INTO {_q(table)} ({cols}) VALUES ({', '.join('?' * len(into))})", rows)
        tx.execute(_SAVE_PROGRESS, mark)


def _move_sequences(target: PostgresDatabase, tables: list[_Table]) -> None:
    """Set every identity sequence of the copied tables past the largest copied value."""
    with target.write() as tx:
        for table in tables:
            identities = tx.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'",
                (table.name,),
            ).fetchall()
            for (column,) in identities:
                tx.execute(
                    f"SELECT setval(pg_get_serial_sequence(?, ?), "
                    f"COALESCE((SELECT MAX({_q(column)}) FROM {_q(table.name)}), 0) + 1, false)",
                    (_q(table.name), column),
                )


# --- verifying ----------------------------------------------------------------------------------


def _check(source: Database, target: Database, table: _Table, copied: int) -> TableCheck:
    names = _shared(source, target, table)
    source_rows, source_sum = checksum(source, table.name, names)
    target_rows, target_sum = checksum(target, table.name, names)
    return TableCheck(table.name, source_rows, target_rows, source_sum, target_sum, copied)


def checksum(db: Database, table: str, names: list[str]) -> tuple[int, str]:
    """The row count and a SHA-256 over the rows in key order (``names[0]`` is the key), the same on
    both engines for the same values."""
    digest = hashlib.sha256()
    count = 0
    select = f"SELECT {', '.join(map(_q, names))} FROM {_q(table)}"
    order = f" ORDER BY {_q(names[0])} LIMIT {_CHECK_BATCH}"
    rows = db.execute(select + order).fetchall()
    while rows:
        for row in rows:
            for value in row:
                digest.update(_encode(value))
        count += len(rows)
        rows = db.execute(f"{select} WHERE {_q(names[0])} > ?{order}", (rows[-1][0],)).fetchall()
    return count, digest.hexdigest()


def _encode(value: Any) -> bytes:
    if value is None:
        return b"n;"
    if isinstance(value, bool | int):
        return b"i%d;" % value
    if isinstance(value, float):  # + 0.0: SQLite keeps no sign on zero, so -0.0 reads as 0.0 there
        return b"f" + repr(value + 0.0).encode() + b";"
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        return b"s%d:" % len(data) + data
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        return b"b%d:" % len(data) + data
    raise StoreError(f"cannot compare a {type(value).__name__} value across databases")
