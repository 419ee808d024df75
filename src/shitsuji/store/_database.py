"""One database API over SQLite (embedded, the default) and PostgreSQL (many processes, many machines).

A process opens one ``Database`` per target at its edge (``database(target)``: a path or
``:memory:`` is a SQLite file, a ``postgresql://`` URL a PostgreSQL database) and hands it to every
store; a store makes sure of its tables with ``db.ensure(SCHEMA)``, reads with
``db.execute(sql, params)`` and writes inside ``with db.write() as tx:`` — one transaction,
committed on success and rolled back on any error. SQL is written once, in the subset both
engines speak, with ``?`` placeholders; the PostgreSQL side sends it with server-side
parameters (psycopg 3), never by pasting values into the text. ``db.dialect`` names the engine
for the few statements that must differ (vector search, keyword indexes).

A transaction belongs to one thread from ``BEGIN`` to ``COMMIT``: SQLite's one connection is
held by that thread's lock until its transaction has ended (another thread's reads and writes
wait; none sees rows not yet committed), PostgreSQL's thread keeps its pooled connection. A
``write()`` opened by a thread already inside one is a savepoint within it, so a store can write
its audit row inside another store's transaction. No store keeps a lock of its own for this.

Nothing above the store layer knows which engine runs: a ``Database`` is all a store holds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ..errors import StoreError, StoreLockedError
from ._api import Database, Dialect, Params, Result, Rows, Tx
from ._attach import attached_to, before_commit
from ._files import private_file
from ._migrations import Schema, migrate
from ._process import local_alive, this_process
from ._replica import (
    CHECK_EVERY_S,
    MAX_LAG_S,
    Replica,
    current_lsn,
    is_read,
    on_primary,
    register,
    replica_of,
    system_identifier,
)
from ._sessions import configure_session
from ._sqlite_settings import apply_settings

if TYPE_CHECKING:  # psycopg is imported only when a PostgreSQL URL is opened
    from psycopg_pool import ConnectionPool

__all__ = ["Database", "Dialect", "Params", "Rows", "Tx"]

BUSY_TIMEOUT_S = 5.0
T = TypeVar("T")


def is_postgres(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def open_database(target: str | Path, *schemas: Schema) -> Database:
    """Open a new connection (SQLite) or a handle on the process's pool (PostgreSQL) to ``target``,
    with ``schemas`` migrated. Stores don't call this: they are handed the process's ``database``."""
    db: Database = PostgresDatabase(str(target)) if is_postgres(target) else SQLiteDatabase(target)
    try:
        db.ensure(*schemas)
    except BaseException:
        db.close()
        raise
    return db


_OPEN: dict[tuple[int, str], Database] = {}
_OPEN_LOCK = threading.Lock()


def database(target: str | Path) -> Database:
    """The process's one ``Database`` for ``target``, opened on first use (the edge: the CLI, the
    web app's start-up, the LINE worker, the MCP server); every store of the process is handed it."""
    key = (os.getpid(), str(target) if is_postgres(target) else str(Path(target).expanduser()))
    with _OPEN_LOCK:
        db = _OPEN.get(key)
        if db is None:
            db = _OPEN[key] = open_database(target)
        return db


def close_databases() -> None:
    """Close this process's databases opened by ``database`` (tests, and a process about to exit)."""
    with _OPEN_LOCK:
        for key in [k for k in _OPEN if k[0] == os.getpid()]:
            _OPEN.pop(key).close()


class _Schemas:
    """Each schema migrated once per open database (a store opening makes sure of its tables)."""

    _ensured: set[str]
    _ensure_lock: threading.Lock

    def ensure(self, *schemas: Schema) -> None:
        with self._ensure_lock:
            todo = [s for s in schemas if s.package not in self._ensured]
            if todo or not self._ensured:
                migrate(self, *todo)  # type: ignore[arg-type]
                self._ensured.update(["", *(s.package for s in todo)])  # "": the bookkeeping table


# --- SQLite -------------------------------------------------------------------------------------

_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_LOCK = threading.Lock()


def _file_lock(where: str) -> threading.RLock:
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(where, threading.RLock())


def _into_wal(conn: sqlite3.Connection) -> None:
    """Put a file in WAL mode, waiting up to ``BUSY_TIMEOUT_S`` for it. The switch needs the file to
    itself, and SQLite answers "locked" at once rather than through its busy handler: several processes
    opening a new database together (``serve`` and the LINE worker on a first start) would fail; they
    take turns here instead. A database that cannot be in WAL (``:memory:``) keeps its mode, as before."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.005
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


class _SQLiteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Params = ()) -> Rows:
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        self._conn.executemany(sql, rows)


class SQLiteDatabase(_Schemas):
    """A SQLite file: WAL journal (readers in other processes never block the writer), foreign keys
    on, a busy timeout so two processes can share it, autocommit with explicit ``BEGIN IMMEDIATE``.

    One connection, and one lock of the process per file that a thread holds from ``BEGIN`` to
    ``COMMIT`` and for each read: no statement of another thread lands inside an open transaction
    or reads its rows. (Measured against a connection per thread in docs/benchmarks.md: a write
    waits the same either way, and a thread's reads wait for a commit of microseconds.)
    """

    dialect: Dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        target = str(path)
        self._ensured = set()
        self._ensure_lock = threading.Lock()
        self._depth = threading.local()
        if target != ":memory:":
            target = str(private_file(target))
        self.where = self.target = target
        self._lock = _file_lock(target)
        try:
            self.conn = sqlite3.connect(
                target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            # switching to WAL needs the file to itself, and SQLite says "locked" at once rather than
            # wait: threads of this process opening a new file take turns, and a file already in
            # WAL (every one after its first opening; the mode is kept in the file) is not asked again
            with self._lock:
                _into_wal(self.conn)
            # WAL with synchronous = NORMAL: a commit is written to the OS at once (an app crash loses
            # nothing) but not flushed to the disk; a power loss or an OS crash may lose the last
            # commits, never corrupts the file. PostgreSQL gets the same promise from
            # ``synchronous_commit = off`` (``SYNCHRONOUS_COMMIT`` below).
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            # reads through a memory map: recall's ~100 candidate rows a query at 100k+ memories
            # (``_sqlite_settings``: why, what was measured and not set, the caps per platform)
            apply_settings(self.conn)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, target) from exc

    def execute(self, sql: str, params: Params = ()) -> Rows:
        with self._lock:  # read in full while no other thread's transaction is open on the connection
            try:
                cur = self.conn.execute(sql, params)
                return Result(cur.fetchall() if cur.description else [], cur.rowcount)
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise translate(exc, self.where) from exc
                raise

    @contextmanager
    def held(self) -> Iterator[None]:
        """The file's lock of the process for a caller's reads and the work between them (a cache
        filled from several reads that no transaction may interleave). Taken before any lock of the
        caller's own — the order ``write()`` takes them — it cannot deadlock with a writer."""
        with self._lock:
            yield

    @contextmanager
    def one_connection(self) -> Iterator[None]:
        """As ``PostgresDatabase.one_connection``: here every statement is on the file's one connection
        already (nothing is taken, no lock is held)."""
        yield

    def ahead(self, sql: str, params: Params = ()) -> None:
        """As ``PostgresDatabase.ahead``: nothing to send ahead in the process's own file."""

    @contextmanager
    def write(self, *, wait: bool = True) -> Iterator[Tx]:
        """One write transaction, or a savepoint in this thread's open one.

        Threads of one process queue on the file's lock of the process rather than in SQLite's
        busy handler, which sleeps in growing steps (a LINE webhook must answer in milliseconds);
        the lock is held through ``COMMIT`` so that the transaction is this thread's alone. Other
        processes meet SQLite's busy handler — ``wait=False`` skips it: ``StoreLockedError`` at
        once while another process writes (for work that is only a shortcut, like a snapshot).
        """
        with self._lock:
            depth = getattr(self._depth, "n", 0)
            self._depth.n = depth + 1
            try:
                if depth:
                    with self._savepoint(depth) as tx:
                        yield tx
                else:
                    with self._transaction(wait) as tx:
                        yield tx
            finally:
                self._depth.n = depth

    @contextmanager
    def _transaction(self, wait: bool = True) -> Iterator[Tx]:
        conn = self.conn
        try:
            if not wait:  # the connection is this thread's while it holds the lock: so is the setting
                conn.execute("PRAGMA busy_timeout = 0")
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise translate(exc, self.where) from exc
        finally:
            if not wait:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        tx = _SQLiteTx(conn)
        try:
            yield tx
            attached = before_commit(self, tx)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
                raise translate(exc, self.where) from exc
            raise
        if attached is not None:
            attached.committed = True

    @contextmanager
    def _savepoint(self, depth: int) -> Iterator[Tx]:
        name = f"sp{depth}"
        self.conn.execute(f"SAVEPOINT {name}")
        try:
            yield _SQLiteTx(self.conn)
        except BaseException:
            self.conn.execute(f"ROLLBACK TO {name}")
            self.conn.execute(f"RELEASE {name}")
            raise
        self.conn.execute(f"RELEASE {name}")

    def write_one(self, sql: str, params: Params = ()) -> Rows:
        """One statement in a write transaction of its own (``PostgresDatabase.write_one``); here
        its rows are read before the commit (the engine is in the process: no round trips to save)."""
        with self.write() as tx:
            cur = tx.execute(sql, params)
            return Result(cur.fetchall(), cur.rowcount)

    def holder(self) -> str:
        """This process's name for the rows it holds (claims, running cards)."""
        return this_process()

    def holder_alive(self, holder: str) -> bool:
        return local_alive(holder)

    def sibling(self, suffix: str) -> str:
        """A database of its own beside this one (its own write lock): ``<path><suffix>``."""
        return self.where if self.where == ":memory:" else f"{self.where}{suffix}"

    def close(self) -> None:
        with self._lock:
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

#: ``synchronous_commit`` of the app's sessions unless the edge says otherwise
#: (``SHITSUJI_SYNCHRONOUS_COMMIT``). Parity with SQLite by default: SQLite runs WAL with
#: ``synchronous = NORMAL`` (no flush at commit), so a power loss or an OS crash may lose its
#: last commits. ``off`` promises PostgreSQL's equivalent: a commit returns before its WAL is
#: flushed, and a crash of the server or its machine may lose the commits of the last
#: ~0.6 s (three ``wal_writer_delay``), never leaves a torn or half-applied transaction
#: (the WAL is replayed in order) — what was lost is lost whole, as if it had never been sent.
#: It is what a turn's wall time on PostgreSQL was made of (docs/benchmarks.md, issue 25:
#: a plain turn 4.8–6.8 ms with it off against 28–37 ms on). ``on`` (PostgreSQL's own
#: default) waits for the flush at every commit; ``remote_apply`` and the others of
#: PostgreSQL's values are for synchronous standbys. Set per session when a connection is
#: made, so it overrides the server's and the database's setting for the app's connections.
SYNCHRONOUS_COMMIT = "off"
SYNCHRONOUS_COMMIT_VALUES = ("off", "local", "on", "remote_write", "remote_apply")
_COMMIT_MODES: dict[str, str] = {}  # url -> the edge's choice (``use_synchronous_commit``)


def use_synchronous_commit(url: str, value: str) -> None:
    """The app's PostgreSQL sessions on ``url`` commit with ``synchronous_commit = value`` (the edge:
    ``SHITSUJI_SYNCHRONOUS_COMMIT``; see ``SYNCHRONOUS_COMMIT``). A connection made before is set
    anew when it is next handed out."""
    if value not in SYNCHRONOUS_COMMIT_VALUES:
        raise StoreError(
            f"synchronous_commit must be one of {', '.join(SYNCHRONOUS_COMMIT_VALUES)}, not {value!r}"
        )
    _COMMIT_MODES[url] = value


def synchronous_commit(url: str) -> str:
    """What this process's sessions on ``url`` are set to."""
    return _COMMIT_MODES.get(url, SYNCHRONOUS_COMMIT)


_SET_TO: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()  # connection -> its mode


def _configure(url: str) -> Callable[[Any], None]:
    """The pool's ``configure``: a new connection's plan cache mode and commit mode."""
    set_mode = _commit_mode(url)

    def configure(conn: Any) -> None:
        configure_session(conn)
        set_mode(conn)

    return configure


def _commit_mode(url: str) -> Callable[[Any], None]:
    """The pool's ``configure`` (a new connection) and ``check`` (each hand-out: a dictionary look-up,
    and one ``SET`` only when the edge changed the mode since the connection was set)."""

    def set_mode(conn: Any) -> None:
        mode = synchronous_commit(url)
        if _SET_TO.get(conn) != mode:
            # a constant of our own list (``use_synchronous_commit`` checked it), never a user's text
            conn.execute(f"SET synchronous_commit = {mode}")
            _SET_TO[conn] = mode

    return set_mode


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
                configure=_configure(url),
                check=_commit_mode(url),
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


def pools() -> int:
    """How many PostgreSQL pools this process holds (one per target)."""
    with _POOLS_LOCK:
        return sum(1 for k in _POOLS if k[0] == os.getpid())


def close_pools() -> None:
    """Close this process's PostgreSQL pools (tests, and a process about to exit)."""
    with _HOLDERS_LOCK:  # the holder locks end with their connections
        for key in [k for k in _HOLDERS if k[0] == os.getpid()]:
            _HOLDERS.pop(key)[1].close()
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


log = logging.getLogger(__name__)

_QMARK = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|\?|%")


@lru_cache(maxsize=1024)
def to_postgres(sql: str) -> str:
    """``?`` placeholders → psycopg's ``%s``, every ``%`` doubled (psycopg always gets parameters,
    an empty tuple at least, so it reads them back as one); a ``?`` in quoted text stays itself."""

    def swap(m: re.Match[str]) -> str:
        token = m.group()
        return "%s" if token == "?" else token.replace("%", "%%")

    return _QMARK.sub(swap, sql)


_TUPLES_OK = 2  # libpq's PGRES_TUPLES_OK (``psycopg.pq.ExecStatus.TUPLES_OK``): the statement gave rows


_KEPT = "_shitsuji_cursor"  # the connection's attribute that holds its one cursor of ``_fetch``


def _cursor(conn: Any) -> Any:
    """``conn``'s one cursor for ``_fetch``, made at its first statement and kept with it: a cursor
    is made for each ``conn.execute`` (its adapters copied, its type registry made — a third of the
    app's CPU for a short statement, measured: docs/benchmarks.md, issue 25 pg25f), and ``_fetch``
    reads every row before it returns, so one cursor of its own serves each statement in turn (a
    pooled connection is one thread's at a time). A cursor copies the connection's adapters when it is
    made: whoever registers more on a connection calls ``adapters_changed`` (pgvector's types)."""
    cur = getattr(conn, _KEPT, None)
    if cur is None:
        cur = conn.cursor()
        setattr(conn, _KEPT, cur)
    return cur


def adapters_changed(conn: Any) -> None:
    """After registering adapters on ``conn`` (``register_vector``): its kept cursor is made anew."""
    if getattr(conn, _KEPT, None) is not None:
        setattr(conn, _KEPT, None)


def _fetch(conn: Any, sql: str, params: Params) -> Rows:
    return fetch_on(conn, to_postgres(sql), params)


def fetch_on(conn: Any, sql: str, params: Params) -> Result:
    """One statement in psycopg's form (``%s``) on ``conn``'s kept cursor, its rows read in full. A read
    takes with it, in its round trip, the reads sent ahead on that connection (``PostgresDatabase.ahead``)."""
    ahead = getattr(conn, _AHEAD, None)
    if ahead is not None and ahead.waiting and _reads_only(sql):
        return _with_ahead(conn, ahead, sql, params)
    cur = _cursor(conn)
    cur.execute(sql, tuple(params))
    return _result(cur)


def _result(cur: Any) -> Result:
    # the result's status, not ``cur.description``: that builds a Column object per column on every
    # statement (10-20 µs of the app's CPU each, measured: docs/benchmarks.md, issue 25 tp25b)
    result = cur.pgresult
    rows = cur.fetchall() if result is not None and result.status == _TUPLES_OK else []
    return Result(rows, cur.rowcount)


# the connection's attribute that holds its reads sent ahead (``_Ahead``), while a ``one_connection`` keeps it
_AHEAD = "_shitsuji_ahead"
_WRITES_IN = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|COPY)\b", re.IGNORECASE)
_Key = tuple[str, tuple[Any, ...]]


@lru_cache(maxsize=256)
def _reads_only(sql: str) -> bool:
    """A statement that only reads: what reads sent ahead may share a round trip with (one transaction
    until the trip's Sync — a failed read must not undo a write that went with it)."""
    return is_read(sql) and not _WRITES_IN.search(sql)


class _Ahead:
    """A kept connection's reads asked for ahead: waiting to go with its next read, then answered until
    the block asks for them (each answer given once)."""

    __slots__ = ("answered", "waiting")

    def __init__(self) -> None:
        self.waiting: list[_Key] = []
        self.answered: dict[_Key, Result] = {}

    def answer(self, sql: str, params: Params) -> Result | None:
        """The rows of ``sql`` with ``params`` read ahead, else None (and it waits no more: it runs now)."""
        key = _key(sql, params) if self.waiting or self.answered else None
        if key is None:
            return None
        if key in self.waiting:
            self.waiting.remove(key)
        return self.answered.pop(key, None)


def _key(sql: str, params: Params) -> _Key | None:
    """A read's key among those sent ahead; None when a parameter is a list (such a read is not sent ahead)."""
    key = (sql, tuple(params))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _with_ahead(conn: Any, ahead: _Ahead, sql: str, params: Params) -> Result:
    """``sql`` and the reads waiting ahead on ``conn`` in one round trip: psycopg's pipeline mode sends
    them together and one Sync at its end. If any fails, the reads ahead are dropped (each runs when
    asked, as it would have) and ``sql`` runs alone."""
    waiting, ahead.waiting = ahead.waiting, []
    sent: list[tuple[_Key, Any]] = []
    main = _cursor(conn)
    try:
        with conn.pipeline():
            for key in waiting:
                cur = conn.cursor()
                cur.execute(to_postgres(key[0]), key[1])
                sent.append((key, cur))
            main.execute(sql, tuple(params))
    except Exception:
        log.debug("reads sent ahead failed; the statement runs alone", exc_info=True)
        main.execute(sql, tuple(params))
        return _result(main)
    for key, cur in sent:
        ahead.answered[key] = _result(cur)
    return _result(main)


def use_replica(
    primary_url: str,
    replica_url: str | None,
    *,
    max_lag_s: float = MAX_LAG_S,
    check_every_s: float = CHECK_EVERY_S,
) -> Replica | None:
    """Serve this process's reads of ``primary_url`` that may lag from the streaming replica at
    ``replica_url`` (None: from the primary again); no connection is made until a read comes."""

    def primary_lsn() -> int:
        with _pool(primary_url).connection(timeout=BUSY_TIMEOUT_S) as conn:
            return current_lsn(conn)

    def primary_identity() -> int:
        with _pool(primary_url).connection(timeout=BUSY_TIMEOUT_S) as conn:
            return system_identifier(conn)

    replica = None
    if replica_url is not None:
        replica = Replica(
            replica_url,
            primary_lsn,
            primary_identity=primary_identity,
            where=redact(replica_url),
            max_lag_s=max_lag_s,
            check_every_s=check_every_s,
        )
    register(primary_url, replica)
    return replica


class _PostgresTx:
    __slots__ = ("_conn", "_where")

    def __init__(self, conn: Any, where: str) -> None:
        self._conn = conn
        self._where = where

    def execute(self, sql: str, params: Params = ()) -> Rows:
        return _run(self._conn, sql, params, self._where)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        if not rows:
            return
        with _translated(self._where), self._conn.cursor() as cur:
            cur.executemany(to_postgres(sql), rows)


# a process's holder lock: (pid, url) -> (holder name, the pooled connection that holds it)
_HOLDERS: dict[tuple[int, str], tuple[str, Any]] = {}
_HOLDERS_LOCK = threading.Lock()
_HOLDER_SPACE = 0x5348_4F4C  # pg_advisory_lock(classid, objid): classid for holders ("SHOL")


def _holder_key(holder: str) -> int:
    return int.from_bytes(hashlib.sha256(holder.encode()).digest()[:4], "big", signed=True)


class PostgresDatabase(_Schemas):
    """A PostgreSQL database through a pool of psycopg 3 connections shared by the process's stores.

    Reads run in autocommit (a thread inside its own write reads on its transaction's connection);
    ``write()`` holds one connection for one transaction (read committed). Rows come back as
    tuples, as from SQLite.
    """

    dialect: Dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = self.target = url
        self.where = redact(url)
        self._ensured = set()
        self._ensure_lock = threading.Lock()
        self._mine = threading.local()  # this thread's transaction's connection
        self._pool = _pool(url)

    def execute(self, sql: str, params: Params = ()) -> Rows:
        conn = getattr(self._mine, "conn", None)
        if conn is not None:
            return _PostgresTx(conn, self.where).execute(sql, params)
        replica = replica_of(self.url)  # reads that may lag, from a streaming replica (``_replica``)
        if replica is not None and is_read(sql):
            answered, rows = replica.run(lambda conn: _fetch(conn, sql, params))
            if answered and rows is not None:
                return rows
        return self._one(sql, params)

    def _one(self, sql: str, params: Params, *, wrote: bool = False) -> Rows:
        """One statement on a pooled connection in autocommit (``wrote``: a write, ``committed`` after it):
        the connection taken and given back by hand, not through the pool's ``connection()`` (a context
        manager, and the connection's own, whose exit asks for a commit that autocommit has nothing to
        do for) — the pool puts a connection left in a transaction or broken right as it would. Inside
        this thread's ``one_connection``, on the connection it keeps."""
        kept = self._kept()
        if kept is not None:
            ahead: _Ahead | None = None if wrote else getattr(kept, _AHEAD, None)
            if ahead is not None and (answered := ahead.answer(sql, params)) is not None:
                return answered
            rows = _run(kept, sql, params, self.where)
            if wrote:
                self.committed(kept)
            return rows
        pool = self._pool
        conn = self._take()
        try:
            rows = _run(conn, sql, params, self.where)
            if wrote:
                self.committed(conn)
            return rows
        finally:
            pool.putconn(conn)

    def _take(self) -> Any:
        try:
            return self._pool.getconn()
        except Exception as exc:
            _raise_as_ours(exc, self.where)

    def _kept(self) -> Any:
        """Inside this thread's ``one_connection``: its connection, taken from the pool at the first
        statement; else None."""
        if not getattr(self._mine, "keeping", 0):
            return None
        conn = getattr(self._mine, "kept", None)
        if conn is None:
            conn = self._mine.kept = self._take()
        return conn

    @contextmanager
    def one_connection(self) -> Iterator[None]:
        """This thread's statements until the block ends on one pooled connection, taken at the first and
        given back at the end: a worker thread's trip that sends several statements in turn (a chat
        turn's start: the session, the claim, the conversation, the words, recall — six) takes the pool's
        connection once rather than for each (``getconn`` / ``putconn``, their lock, check and log calls:
        docs/benchmarks.md, issue 25 pa27). Reads and lone writes still run in autocommit, a ``write()``
        is a transaction on that connection, a read that may lag still goes to the replica. Hold it for
        blocking work only — a thread's trip, never across an ``await`` or a model's answer: the
        connection is nobody else's meanwhile. Nested: the outer block's connection."""
        depth = getattr(self._mine, "keeping", 0)
        self._mine.keeping = depth + 1
        try:
            yield
        finally:
            self._mine.keeping = depth
            conn = getattr(self._mine, "kept", None) if not depth else None
            if conn is not None:
                self._mine.kept = None
                setattr(conn, _AHEAD, None)  # reads sent ahead and not asked for end with the block
                self._pool.putconn(conn)  # left in a transaction or broken: the pool mends or drops it

    def ahead(self, sql: str, params: Params = ()) -> None:
        """Inside this thread's ``one_connection``: ``sql`` (a read) goes in the round trip of the block's
        next read on its connection (psycopg's pipeline mode), and ``execute(sql, params)`` later in the
        block returns those rows without a trip of its own — two reads from different layers of a worker
        thread's trip (recall's candidates and the household's counts) in one round trip (docs/benchmarks.md,
        issue 25 pg29). Nothing outside a block, inside a ``write()``, or while reads may go to a replica;
        asked for by nobody, it is dropped at the block's end (and was still sent)."""
        if not getattr(self._mine, "keeping", 0) or getattr(self._mine, "conn", None) is not None:
            return
        if replica_of(self.url) is not None or not _reads_only(sql):
            return
        key = _key(sql, params)
        if key is None:  # a list among the parameters: it runs when asked
            return
        conn = self._kept()
        ahead = getattr(conn, _AHEAD, None)
        if ahead is None:
            ahead = _Ahead()
            setattr(conn, _AHEAD, ahead)
        if key not in ahead.waiting:
            ahead.waiting.append(key)

    @contextmanager
    def write(self) -> Iterator[Tx]:
        conn = getattr(self._mine, "conn", None)
        if conn is not None:  # a savepoint in this thread's transaction
            with _translated(self.where), conn.transaction():
                yield _PostgresTx(conn, self.where)
            return
        attached = None
        with _translated(self.where), self._pooled() as conn:
            self._mine.conn = conn
            try:
                with conn.transaction():
                    tx = _PostgresTx(conn, self.where)
                    yield tx
                    attached = before_commit(self, tx)
                self.committed(conn)
            finally:
                self._mine.conn = None
        if attached is not None:
            attached.committed = True

    @contextmanager
    def _pooled(self) -> Iterator[Any]:
        """The connection this thread's ``one_connection`` keeps, else one from the pool for the block."""
        kept = self._kept()
        if kept is not None:
            yield kept
            return
        with self._pool.connection() as conn:
            yield conn

    def write_one(self, sql: str, params: Params = ()) -> Rows:
        """One statement that is a write transaction of its own, sent alone in autocommit: one round
        trip where ``write()`` takes three (BEGIN, the statement, COMMIT) — PostgreSQL runs a lone
        statement atomically, all of it or none. Inside this thread's ``write()``, or with work
        attached to this context's next write (``with_next_write``), it joins a transaction as
        ``write()`` would."""
        if getattr(self._mine, "conn", None) is not None or attached_to(self):
            with self.write() as tx:
                return tx.execute(sql, params)
        return self._one(sql, params, wrote=True)

    def committed(self, conn: Any) -> None:
        """After a commit on ``conn``: the acting member reads what it wrote from now on (``_replica``), and
        reads sent ahead on ``conn`` before it are dropped (asked for later, they run again: never rows
        from before a write)."""
        if getattr(conn, _AHEAD, None) is not None:
            setattr(conn, _AHEAD, None)
        if (replica := replica_of(self.url)) is not None:
            replica.wrote(conn)

    def read_with(self, work: Callable[[Any], T]) -> T:
        """``work(conn)`` for reads that may lag (recall's searches): on a streaming replica's
        connection when it may answer the acting member (``_replica``), else on a pooled one."""
        replica = replica_of(self.url)
        if replica is not None:
            answered, value = replica.run(work)
            if answered:
                return value  # type: ignore[return-value]  # answered: work's own value
        with _translated(self.where), self._pooled() as conn:
            return work(conn)

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled psycopg connection (autocommit), for what only PostgreSQL has (COPY, LISTEN); inside
        this thread's ``write()``, that transaction's connection (its rows, its commit or rollback)."""
        conn = getattr(self._mine, "conn", None)
        if conn is not None:
            yield conn
            return
        with _translated(self.where), self._pooled() as conn:
            yield conn

    def holder(self) -> str:
        """This process's name for the rows it holds, backed by a session-level advisory lock on a
        connection kept out of the pool for the process's life: the server lets go of it when the
        process dies (``kill -9`` included), so ``holder_alive`` sees it gone at once."""
        key = (os.getpid(), self.url)
        with _HOLDERS_LOCK:  # call it outside a transaction: it may wait for a pooled connection
            held = _HOLDERS.get(key)
            if held is None:
                name = this_process()
                conn = self._pool.getconn()
                with _translated(self.where):
                    conn.execute("SELECT pg_advisory_lock(%s, %s)", (_HOLDER_SPACE, _holder_key(name)))
                held = _HOLDERS[key] = (name, conn)
        return held[0]

    def holder_alive(self, holder: str) -> bool:
        with on_primary():  # a replica's pg_locks are its own, not the primary's
            row = self.execute(
                "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = ? AND objid::bigint = ? "
                "AND objsubid = 2 AND granted",
                (_HOLDER_SPACE & 0xFFFFFFFF, _holder_key(holder) & 0xFFFFFFFF),
            ).fetchone()
        return row is not None

    def sibling(self, suffix: str) -> str:
        """Side databases (the LINE inbox) live in the same PostgreSQL database: rows don't share a lock."""
        return self.url

    def close(self) -> None:
        """The pool stays open for the process's other stores; ``close_pools`` ends it."""


def _run(conn: Any, sql: str, params: Params, where: str) -> Rows:
    """``_fetch`` with psycopg's errors told as ours (``_translate``), without a context manager per statement."""
    try:
        return _fetch(conn, sql, params)
    except Exception as exc:
        _raise_as_ours(exc, where)


@contextmanager
def _translated(where: str) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        _raise_as_ours(exc, where)


def _raise_as_ours(exc: Exception, where: str) -> NoReturn:
    """Raise ours for ``exc`` (``_translate``), with ``exc`` as its cause; any other error as it was
    (its cause untouched: ``raise exc from exc`` would make an error inside a write block its own cause)."""
    ours = _translate(exc, where)
    if ours is None:
        raise exc
    raise ours from exc


def _translate(exc: Exception, where: str) -> StoreError | None:
    """Ours for psycopg's errors that a caller may act on (a lock not granted, a server out of reach)."""
    import psycopg

    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return StoreLockedError(f"{where} is locked by another session: try again")
    if isinstance(exc, psycopg.OperationalError):
        return StoreError(f"PostgreSQL at {where} cannot be used: {exc}")
    return None
