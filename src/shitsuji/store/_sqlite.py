"""Opening SQLite the way every shitsuji store wants it.

WAL journal (readers never block the writer), foreign keys on, a busy timeout so two
processes can share a database, autocommit mode with explicit ``BEGIN IMMEDIATE`` for
writes, and the schema migrated on open. SQLite's own errors are translated into
``StoreError`` subclasses with a message that says what to do.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreError, StoreLockedError
from ._migrations import Schema, migrate

BUSY_TIMEOUT_S = 5.0


def connect(path: str | Path, *schemas: Schema) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` (``:memory:`` allowed), ``schemas`` migrated."""
    target = str(path)
    if target != ":memory:":
        Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, *schemas)
    except sqlite3.DatabaseError as exc:
        raise translate(exc, target) from exc
    return conn


_WRITERS: dict[str, threading.RLock] = {}
_WRITERS_LOCK = threading.Lock()


def _writer(where: str) -> threading.RLock:
    with _WRITERS_LOCK:
        return _WRITERS.setdefault(where, threading.RLock())


@contextmanager
def write(conn: sqlite3.Connection, where: str = "the database") -> Iterator[sqlite3.Connection]:
    """One write transaction: committed on success, rolled back on any error.

    Threads of one process that write to the same database (``where``: its path) queue on a lock
    of the process first: SQLite's own busy handler sleeps in growing steps while another writer
    holds the file, which a thread that must answer in milliseconds (the LINE webhook) cannot
    afford beside a busy worker thread. The lock is let go before ``COMMIT``, whose WAL
    checkpoint (an fsync, now and then) must not hold up the other threads: the next writer
    waits only for the commit itself, in SQLite's busy handler. Other processes meet that
    handler too.
    """
    with _writer(where):
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise translate(exc, where) from exc
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    try:
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        conn.execute("ROLLBACK")
        raise translate(exc, where) from exc


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
