"""Which memory store serves a database: chosen by its engine, in one place above both stores.

A store takes the process's ``Database`` (``store.database(target)``) like every other store and
makes sure of its tables itself; ``memory_store`` picks the implementation for its engine, and
``open_store`` is the convenience at the edge (CLI, benches, tests) that names the database by
its path or URL.
"""

from __future__ import annotations

from pathlib import Path

from .. import store as db
from ._store import MemoryStore


def memory_store(database: db.Database) -> MemoryStore:
    """The memory store over ``database`` (its tables made if missing)."""
    if database.dialect == "postgresql":
        from ._postgres_store import PostgresMemoryStore  # psycopg and pgvector load only for PostgreSQL

        return PostgresMemoryStore(database)
    from ._sqlite_store import SQLiteMemoryStore

    return SQLiteMemoryStore(database)


def open_store(target: str | Path) -> MemoryStore:
    """The memory store on the process's database for ``target``: a SQLite file, or a
    ``postgresql://`` database (``store.database(target)``; ``close()`` leaves it open)."""
    return memory_store(db.database(target))
