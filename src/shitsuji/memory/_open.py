"""Which memory store serves a database: chosen by its engine, in one place above both stores.

A store takes an open ``Database`` (``store.open_database(target, MEMORY_SCHEMA)``);
``memory_store`` picks the implementation for its engine, and ``open_store`` is the
convenience at the edge (CLI, benches, tests) that opens the database from a path or URL
and lets the store close it.
"""

from __future__ import annotations

from pathlib import Path

from .. import store as db
from ._schema import MEMORY_SCHEMA
from ._store import MemoryStore


def memory_store(database: db.Database, *, owns_database: bool = False) -> MemoryStore:
    """The memory store over ``database`` (opened with ``MEMORY_SCHEMA``)."""
    if database.dialect == "postgresql":
        from ._postgres_store import PostgresMemoryStore  # psycopg and pgvector load only for PostgreSQL

        return PostgresMemoryStore(database, owns_database=owns_database)
    from ._sqlite_store import SQLiteMemoryStore

    return SQLiteMemoryStore(database, owns_database=owns_database)


def open_store(target: str | Path) -> MemoryStore:
    """The memory store for ``target``: a SQLite file, or a ``postgresql://`` database.

    The store owns the database it opened here: ``close()`` closes it.
    """
    database = db.open_database(target, MEMORY_SCHEMA)
    try:
        return memory_store(database, owns_database=True)
    except BaseException:
        database.close()
        raise
