"""Database access: one API over SQLite and PostgreSQL, write transactions and named migrations
(each package owns its set); one ``Database`` per process and target, handed to every store."""

from ._api import Database, Dialect, Params, Rows, Tx
from ._attach import Attached, with_next_write
from ._database import (
    BUSY_TIMEOUT_S,
    PostgresDatabase,
    SQLiteDatabase,
    close_databases,
    close_pools,
    database,
    is_postgres,
    open_database,
    pools,
    redact,
    to_postgres,
)
from ._files import private_file, private_folder
from ._migrations import PER_PACKAGE, Migration, Schema, migrate, ordered, postgres_ddl
from ._table import Table

__all__ = [
    "BUSY_TIMEOUT_S",
    "PER_PACKAGE",
    "Attached",
    "Database",
    "Dialect",
    "Migration",
    "Params",
    "PostgresDatabase",
    "Rows",
    "SQLiteDatabase",
    "Schema",
    "Table",
    "Tx",
    "close_databases",
    "close_pools",
    "database",
    "is_postgres",
    "migrate",
    "open_database",
    "ordered",
    "pools",
    "postgres_ddl",
    "private_file",
    "private_folder",
    "redact",
    "to_postgres",
    "with_next_write",
]
