"""Named, ordered schema migrations, owned by the package whose tables they create.

The store layer holds no app tables: each package (memory, context, agent, household,
web …) declares its ``Schema`` — a name and an ordered tuple of ``Migration``s — and
every store opens its connection with the schemas it uses. A migration runs once, in
order, inside one transaction with its bookkeeping row (``schema_migrations``: name,
package, time), so a crash leaves the database at the previous step.

A database that has migrations of a package which this shitsuji does not know was
written by a newer version and is refused rather than guessed at. ``PRAGMA
user_version`` is set to ``PER_PACKAGE`` so that shitsuji releases from before per-package
sets (which compared it with their own count, at most 10) refuse such a database too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..errors import SchemaTooNewError

PER_PACKAGE = 1000  # user_version marker: older releases (≤ 10 migrations) refuse the file


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    sql: str


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


def migrate(conn: sqlite3.Connection, *schemas: Schema) -> list[str]:
    """Bring the given packages' tables up to date; return the names of the migrations applied now."""
    _bookkeeping(conn)
    applied_now: list[str] = []
    for schema in ordered(schemas):
        done = _applied(conn, schema)
        unknown = sorted(done - set(schema.names()))
        if unknown:
            raise SchemaTooNewError(
                f"this database has {schema.package} migrations this shitsuji does not know "
                f"({', '.join(unknown)}): upgrade shitsuji (pip install -U shitsuji) or use another --db"
            )
        for migration in schema.migrations:
            if migration.name in done:
                continue
            _apply(conn, schema.package, migration)
            applied_now.append(migration.name)
    return applied_now


def _bookkeeping(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > PER_PACKAGE:
        raise SchemaTooNewError(
            f"this database has schema version {version}, newer than this shitsuji understands: "
            "upgrade shitsuji (pip install -U shitsuji) or use another --db"
        )
    if version == PER_PACKAGE:
        return
    conn.execute("BEGIN IMMEDIATE")  # two processes may open a new database at once
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL, package TEXT)"
        )
        columns = [row[1] for row in conn.execute("PRAGMA table_info(schema_migrations)")]
        if "package" not in columns:  # a database from before per-package sets
            conn.execute("ALTER TABLE schema_migrations ADD COLUMN package TEXT")
        conn.execute(f"PRAGMA user_version = {PER_PACKAGE}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _applied(conn: sqlite3.Connection, schema: Schema) -> set[str]:
    names = schema.names()
    marks = ",".join("?" * len(names))
    unclaimed = f"package IS NULL AND name IN ({marks})"  # rows from before per-package sets
    if names and conn.execute(f"SELECT 1 FROM schema_migrations WHERE {unclaimed}", names).fetchone():
        conn.execute(f"UPDATE schema_migrations SET package = ? WHERE {unclaimed}", (schema.package, *names))
    rows = conn.execute("SELECT name FROM schema_migrations WHERE package = ?", (schema.package,))
    return {row[0] for row in rows}


def _apply(conn: sqlite3.Connection, package: str, migration: Migration) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (migration.name,)).fetchone():
            conn.execute("ROLLBACK")  # another process applied it while we looked
            return
        for statement in _statements(migration.sql):
            conn.execute(statement)
        conn.execute(
            "INSERT INTO schema_migrations (name, applied_at, package) VALUES (?, ?, ?)",
            (migration.name, datetime.now(UTC).isoformat(), package),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _statements(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]
