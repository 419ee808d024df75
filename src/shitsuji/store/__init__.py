"""Database access: one API over SQLite and PostgreSQL, write transactions and named migrations
(each package owns its set); one ``Database`` per process and target, handed to every store;
reads that may lag served by a streaming replica when one is registered (``use_replica``); the
app's PostgreSQL sessions commit as SQLite's WAL does unless told otherwise (``use_synchronous_commit``)."""

from ._api import Database, Dialect, Params, Rows, Tx
from ._attach import Attached, with_next_write
from ._database import (
    BUSY_TIMEOUT_S,
    SYNCHRONOUS_COMMIT,
    SYNCHRONOUS_COMMIT_VALUES,
    PostgresDatabase,
    SQLiteDatabase,
    adapters_changed,
    close_databases,
    close_pools,
    database,
    fetch_on,
    is_postgres,
    open_database,
    pools,
    redact,
    synchronous_commit,
    to_postgres,
    use_replica,
    use_synchronous_commit,
)
from ._files import private_file, private_folder
from ._migrations import PER_PACKAGE, Migration, Schema, migrate, ordered, postgres_ddl
from ._replica import (
    Replica,
    acting_as,
    as_member,
    close_replicas,
    may_lag,
    on_primary,
    replica_of,
    replica_reads,
)
from ._sqlite_settings import settings as sqlite_settings
from ._store import Store
from ._table import Table

__all__ = [
    "BUSY_TIMEOUT_S",
    "PER_PACKAGE",
    "SYNCHRONOUS_COMMIT",
    "SYNCHRONOUS_COMMIT_VALUES",
    "Attached",
    "Database",
    "Dialect",
    "Migration",
    "Params",
    "PostgresDatabase",
    "Replica",
    "Rows",
    "SQLiteDatabase",
    "Schema",
    "Store",
    "Table",
    "Tx",
    "acting_as",
    "adapters_changed",
    "as_member",
    "close_databases",
    "close_pools",
    "close_replicas",
    "database",
    "fetch_on",
    "is_postgres",
    "may_lag",
    "migrate",
    "on_primary",
    "open_database",
    "ordered",
    "pools",
    "postgres_ddl",
    "private_file",
    "private_folder",
    "redact",
    "replica_of",
    "replica_reads",
    "sqlite_settings",
    "synchronous_commit",
    "to_postgres",
    "use_replica",
    "use_synchronous_commit",
    "with_next_write",
]
