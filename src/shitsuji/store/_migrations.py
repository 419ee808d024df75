"""Named, ordered schema migrations, owned by the package whose tables they create.

The store layer holds no app tables: each package (memory, context, agent, household,
web …) declares its ``Schema`` — a name and an ordered tuple of ``Migration``s — and
every store opens its connection with the schemas it uses. A migration runs once, in
order, inside one transaction with its bookkeeping row (``schema_migrations``: name,
package, time), so a crash leaves the database at the previous step.

Migrations are written in SQLite's dialect; on PostgreSQL the same text runs with its types
mapped (``INTEGER`` → ``BIGINT``, ``REAL`` → ``DOUBLE PRECISION``, ``BLOB`` → ``BYTEA``, an
``INTEGER PRIMARY KEY`` → an identity column) and every table given the ``rowid`` column SQLite
has built in. A migration whose statements only SQLite understands (a data backfill over JSON)
carries its PostgreSQL text in ``postgres`` ("" when there is nothing to do there; its types
are mapped the same way).

A database that has migrations of a package which this shitsuji does not know was
written by a newer version and is refused rather than guessed at. ``PRAGMA
user_version`` is set to ``PER_PACKAGE`` so that shitsuji releases from before per-package
sets (which compared it with their own count, at most 10) refuse such a database too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..errors import SchemaTooNewError
from ._api import Database, Tx

PER_PACKAGE = 1000  # user_version marker: older releases (≤ 10 migrations) refuse the file
_LOCK_KEY = 0x5348_4954  # pg_advisory_xact_lock key: one process migrates at a time ("SHIT")


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    sql: str
    postgres: str | None = None  # None: ``sql`` with its types mapped

    def statements(self, dialect: str) -> list[str]:
        if dialect == "sqlite":
            return _statements(self.sql)
        text = self.sql if self.postgres is None else self.postgres
        return [postgres_ddl(s) for s in _statements(text)]


@dataclass(frozen=True, slots=True)
class Schema:
    """One package's migrations, applied after the schemas it ``requires``."""

    package: str
    migrations: tuple[Migration, ...]
    requires: tuple[Schema, ...] = ()

    def names(self) -> list[str]:
        return [m.name for m in self.migrations]


def ordered(schemas: Iterable[Schema]) -> list[Schema]:
    """The schemas with their requirements first, each once."""
    out: list[Schema] = []

    def visit(schema: Schema) -> None:
        for needed in schema.requires:
            visit(needed)
        if all(s.package != schema.package for s in out):
            out.append(schema)

    for schema in schemas:
        visit(schema)
    return out


def migrate(db: Database, *schemas: Schema) -> list[str]:
    """Bring the given packages' tables up to date; return the names of the migrations applied now."""
    _bookkeeping(db)
    applied_now: list[str] = []
    for schema in ordered(schemas):
        done = _applied(db, schema)
        unknown = sorted(done - set(schema.names()))
        if unknown:
            raise SchemaTooNewError(
                f"this database has {schema.package} migrations this shitsuji does not know "
                f"({', '.join(unknown)}): upgrade shitsuji (pip install -U shitsuji) or use another database"
            )
        for migration in schema.migrations:
            if migration.name in done:
                continue
            if _apply(db, schema.package, migration):
                applied_now.append(migration.name)
    return applied_now


def _bookkeeping(db: Database) -> None:
    create = "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL, package TEXT)"
    if db.dialect == "postgresql":
        if db.execute("SELECT to_regclass('schema_migrations')").fetchone()[0] is None:
            with db.write() as tx:
                _lock(db, tx)
                tx.execute(create)
        return
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > PER_PACKAGE:
        raise SchemaTooNewError(
            f"this database has schema version {version}, newer than this shitsuji understands: "
            "upgrade shitsuji (pip install -U shitsuji) or use another --db"
        )
    if version == PER_PACKAGE:
        return
    with db.write() as tx:  # two processes may open a new database at once
        tx.execute(create)
        columns = [row[1] for row in tx.execute("PRAGMA table_info(schema_migrations)")]
        if "package" not in columns:  # a database from before per-package sets
            tx.execute("ALTER TABLE schema_migrations ADD COLUMN package TEXT")
        tx.execute(f"PRAGMA user_version = {PER_PACKAGE}")


def _applied(db: Database, schema: Schema) -> set[str]:
    names = schema.names()
    marks = ",".join("?" * len(names))
    unclaimed = f"package IS NULL AND name IN ({marks})"  # rows from before per-package sets
    if names and db.execute(f"SELECT 1 FROM schema_migrations WHERE {unclaimed}", names).fetchone():
        with db.write() as tx:
            tx.execute(
                f"UPDATE schema_migrations SET package = ? WHERE {unclaimed}", (schema.package, *names)
            )
    rows = db.execute("SELECT name FROM schema_migrations WHERE package = ?", (schema.package,))
    return {row[0] for row in rows}


def _apply(db: Database, package: str, migration: Migration) -> bool:
    with db.write() as tx:
        _lock(db, tx)
        if tx.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (migration.name,)).fetchone():
            return False  # another process applied it while we looked
        for statement in migration.statements(db.dialect):
            tx.execute(statement)
        tx.execute(
            "INSERT INTO schema_migrations (name, applied_at, package) VALUES (?, ?, ?)",
            (migration.name, datetime.now(UTC).isoformat(), package),
        )
    return True


def _lock(db: Database, tx: Tx) -> None:
    if db.dialect == "postgresql":
        tx.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))


_DOLLAR_QUOTED = re.compile(r"(\$\$.*?\$\$)", re.S)


def _statements(sql: str) -> list[str]:
    """``sql`` split at its semicolons, except those inside a ``$$ … $$`` body (a PostgreSQL function)."""
    out: list[str] = []
    current = ""
    for i, part in enumerate(_DOLLAR_QUOTED.split(sql)):
        if i % 2:  # a quoted body: kept whole
            current += part
            continue
        first, *rest = part.split(";")
        current += first
        for piece in rest:
            out.append(current)
            current = piece
    out.append(current)
    return [s.strip() for s in out if s.strip()]


_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY\b", re.I), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.I), "BYTEA"),
)
_CREATE_TABLE = re.compile(r"^\s*CREATE TABLE (IF NOT EXISTS )?(\w+) \(", re.I)


def postgres_ddl(statement: str) -> str:
    """A SQLite DDL statement in PostgreSQL's words, every new table given SQLite's ``rowid``."""
    for pattern, replacement in _TYPES:
        statement = pattern.sub(replacement, statement)
    if (m := _CREATE_TABLE.match(statement)) and not re.search(r"\browid\b", statement):
        statement = (
            statement[: m.end()]
            + "rowid BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE, "
            + statement[m.end() :]
        )
    return statement
