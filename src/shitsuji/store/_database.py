"""One database API over SQLite (embedded, the default) and PostgreSQL (many processes, many machines).

Every store opens its database with ``open_database(target, *schemas)``: a path (or ``:memory:``)
is a SQLite file, a ``postgresql://`` URL is a PostgreSQL database. The store then reads with
``db.execute(sql, params)`` and writes inside ``with db.write() as tx:`` — one transaction,
committed on success and rolled back on any error. SQL is written once, in the subset both
engines speak, with ``?`` placeholders; the PostgreSQL side sends it with server-side
parameters (psycopg 3), never by pasting values into the text. ``db.dialect`` names the engine
for the few statements that must differ (vector search, keyword indexes).

Nothing above the store layer knows which engine runs: a ``Database`` is all a store holds.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

from ..errors import StoreError, StoreLockedError

if TYPE_CHECKING:  # psycopg is imported only when a PostgreSQL URL is opened
    from psycopg_pool import ConnectionPool

    from ._migrations import Schema

BUSY_TIMEOUT_S = 5.0
Dialect = Literal["sqlite", "postgresql"]
Params = Sequence[Any]


class Rows(Protocol):
    """What a statement gives back: its rows (tuples) and how many rows it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Tx(Protocol):
    """A write transaction in progress."""

    def execute(self, sql: str, params: Params = ()) -> Rows: ...

    def executemany(self, sql: str, rows: Sequence[Params]) -> None: ...


class Database(Protocol):
    """An open database: reads, write transactions, its engine and a printable name."""

    dialect: Dialect
    where: str  # the path, or the URL without its password: for messages

    def execute(self, sql: str, params: Params = ()) -> Rows: ...

    def write(self) -> AbstractContextManager[Tx]: ...

    def sibling(self, suffix: str) -> str: ...

    def close(self) -> None: ...


def is_postgres(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def open_database(target: str | Path, *schemas: Schema) -> Database:
    """Open (creating if needed) the database ``target`` names, with ``schemas`` migrated."""
    from ._migrations import migrate

    db: Database = PostgresDatabase(str(target)) if is_postgres(target) else SQLiteDatabase(target)
    try:
        migrate(db, *schemas)
    except BaseException:
        db.close()
        raise
    return db


# --- SQLite -------------------------------------------------------------------------------------

_WRITERS: dict[str, threading.RLock] = {}
_WRITERS_LOCK = threading.Lock()


def _writer(where: str) -> threading.RLock:
    with _WRITERS_LOCK:
        return _WRITERS.setdefault(where, threading.RLock())


class _SQLiteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Params = ()) -> Rows:
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        self._conn.executemany(sql, rows)


class SQLiteDatabase:
    """A SQLite file: WAL journal (readers never block the writer), foreign keys on, a busy
    timeout so two processes can share it, autocommit with explicit ``BEGIN IMMEDIATE`` writes."""

    dialect: Dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        target = str(path)
        if target != ":memory:":
            Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.where = target
        try:
            self.conn = sqlite3.connect(
                target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            # switching to WAL needs the file to itself, and SQLite says "locked" at once rather than
            # wait: threads of this process opening a new file take turns, and a file already in
            # WAL (every one after its first opening; the mode is kept in the file) is not asked again
            with _writer(target):
                if self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            raise translate(exc, target) from exc

    def execute(self, sql: str, params: Params = ()) -> Rows:
        try:
            return self.conn.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise translate(exc, self.where) from exc
            raise

    @contextmanager
    def write(self) -> Iterator[Tx]:
        """One write transaction.

        Threads of one process that write to the same file queue on a lock of the process
        first: SQLite's own busy handler sleeps in growing steps while another writer holds the
        file, which a thread that must answer in milliseconds (the LINE webhook) cannot afford
        beside a busy worker thread. The lock is let go before ``COMMIT``, whose WAL checkpoint
        (an fsync, now and then) must not hold up the other threads. Other processes meet
        SQLite's busy handler.
        """
        conn = self.conn
        with _writer(self.where):
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise translate(exc, self.where) from exc
            try:
                yield _SQLiteTx(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        try:
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            raise translate(exc, self.where) from exc

    def sibling(self, suffix: str) -> str:
        """A database of its own beside this one (its own write lock): ``<path><suffix>``."""
        return self.where if self.where == ":memory:" else f"{self.where}{suffix}"

    def close(self) -> None:
        self.conn.close()


def translate(exc: sqlite3.DatabaseError, where: str) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreLockedError(
            f"{where} is locked by another process (waited {BUSY_TIMEOUT_S:.0f} s): "
            "wait for it to finish, or point --db / SHITSUJI_DB elsewhere"
        )
    if "not a database" in text or "malformed" in text:
        return StoreError(f"{where} is not a shitsuji database or is damaged ({text})")
    return StoreError(f"{where}: {text}")


# --- PostgreSQL ---------------------------------------------------------------------------------

POOL_SIZE = 8
_POOLS: dict[tuple[int, str], ConnectionPool] = {}
_POOLS_LOCK = threading.Lock()


def _pool(url: str) -> ConnectionPool:
    """One connection pool per database URL and process (a forked child opens its own)."""
    key = (os.getpid(), url)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            try:
                from psycopg_pool import ConnectionPool
            except ImportError as exc:  # pragma: no cover - psycopg is a dependency
                raise StoreError(
                    "PostgreSQL needs psycopg: pip install 'psycopg[binary]' psycopg-pool"
                ) from exc
            pool = ConnectionPool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True},
                open=False,
                name="shitsuji",
            )
            try:
                pool.open(wait=True, timeout=BUSY_TIMEOUT_S * 2)
            except Exception as exc:
                pool.close()
                raise StoreError(f"cannot reach PostgreSQL at {redact(url)}: {exc}") from exc
            _POOLS[key] = pool
        return pool


def close_pools() -> None:
    """Close this process's PostgreSQL pools (tests, and a process about to exit)."""
    with _POOLS_LOCK:
        for key in [k for k in _POOLS if k[0] == os.getpid()]:
            _POOLS.pop(key).close()


def redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


_QMARK = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|\?|%")


@lru_cache(maxsize=1024)
def to_postgres(sql: str) -> str:
    """``?`` placeholders → psycopg's ``%s``, every ``%`` doubled (psycopg always gets parameters,
    an empty tuple at least, so it reads them back as one); a ``?`` in quoted text stays itself."""

    def swap(m: re.Match[str]) -> str:
        token = m.group()
        return "%s" if token == "?" else token.replace("%", "%%")

    return _QMARK.sub(swap, sql)


class _Result:
    """Rows read on a connection that went back to the pool."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return self._rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


class _PostgresTx:
    __slots__ = ("_conn", "_where")

    def __init__(self, conn: Any, where: str) -> None:
        self._conn = conn
        self._where = where

    def execute(self, sql: str, params: Params = ()) -> Rows:
        with _translated(self._where):
            cur = self._conn.execute(to_postgres(sql), tuple(params))
            return _Result(cur.fetchall() if cur.description else [], cur.rowcount)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        if not rows:
            return
        with _translated(self._where), self._conn.cursor() as cur:
            cur.executemany(to_postgres(sql), rows)


class PostgresDatabase:
    """A PostgreSQL database through a pool of psycopg 3 connections shared by the process's stores.

    Reads run in autocommit; ``write()`` holds one connection for one transaction (read
    committed). Rows come back as tuples, as from SQLite.
    """

    dialect: Dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redact(url)
        self._pool = _pool(url)

    def execute(self, sql: str, params: Params = ()) -> Rows:
        with _translated(self.where), self._pool.connection() as conn:
            cur = conn.execute(to_postgres(sql), tuple(params))
            return _Result(cur.fetchall() if cur.description else [], cur.rowcount)

    @contextmanager
    def write(self) -> Iterator[Tx]:
        with _translated(self.where), self._pool.connection() as conn, conn.transaction():
            yield _PostgresTx(conn, self.where)

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled psycopg connection (autocommit), for what only PostgreSQL has (COPY, LISTEN)."""
        with _translated(self.where), self._pool.connection() as conn:
            yield conn

    def sibling(self, suffix: str) -> str:
        """Side databases (the LINE inbox) live in the same PostgreSQL database: rows don't share a lock."""
        return self.url

    def close(self) -> None:
        """The pool stays open for the process's other stores; ``close_pools`` ends it."""


@contextmanager
def _translated(where: str) -> Iterator[None]:
    import psycopg

    try:
        yield
    except psycopg.errors.LockNotAvailable as exc:
        raise StoreLockedError(f"{where} is locked by another session: try again") from exc
    except psycopg.OperationalError as exc:
        raise StoreError(f"PostgreSQL at {where} cannot be used: {exc}") from exc
