"""Database access: one API over SQLite and PostgreSQL, write transactions and named migrations
(each package owns its set)."""

from ._database import (
    BUSY_TIMEOUT_S,
    Database,
    Dialect,
    Params,
    PostgresDatabase,
    Rows,
    SQLiteDatabase,
    Tx,
    close_pools,
    is_postgres,
    open_database,
    redact,
    to_postgres,
)
from ._migrations import PER_PACKAGE, Migration, Schema, migrate, ordered, postgres_ddl

__all__ = [
    "BUSY_TIMEOUT_S",
    "PER_PACKAGE",
    "Database",
    "Dialect",
    "Migration",
    "Params",
    "PostgresDatabase",
    "Rows",
    "SQLiteDatabase",
    "Schema",
    "Tx",
    "close_pools",
    "is_postgres",
    "migrate",
    "open_database",
    "ordered",
    "postgres_ddl",
    "redact",
    "to_postgres",
]
