"""Reads from a streaming replica of the PostgreSQL primary, when they may lag and the replica keeps up.

A household's pages and recall read far more than they write; a hot standby fed by streaming
replication can serve those reads and leave the primary its writes. Three rules keep that
invisible to the member:

- **Only reads that may lag go there.** A signed-in member's read-only request (a page, a GET of
  the JSON API) and recall (``replica_reads()``) mark their thread's reads as such
  (``acting_as``); everything else — writes, reads inside a transaction, sign-in, claims,
  holder checks (``on_primary()``) — reads the primary. Only ``SELECT``/``WITH`` statements go.
- **A member reads their own writes.** After each write transaction of a member, the primary's
  WAL position (LSN) is remembered for the pair (household, member); their reads go to the
  primary until the replica has replayed past it. (In this process: with several app processes
  behind a balancer that is not sticky, a member's next request may land in a process that did
  not see the write, and read within the lag bound — see docs/scaling.md.)
- **Only the primary's own standby.** At the first check the standby's system identifier is
  compared with the primary's, once for the process: a standby of another cluster (a replica URL
  that names the wrong server: its rows are not this database's, and its WAL positions mean
  nothing beside ours) is never read, and so is one whose identifier cannot be read (every role
  may call ``pg_control_system()`` unless a server revoked it); the log says which and why.
- **A replica that lags or is down is skipped, nothing fails.** The replica is checked at most
  every ``check_every_s``: its replayed LSN against the primary's positions sampled over the last
  ``max_lag_s``; behind all of them (replay paused, a slow disk) or unreachable means the
  primary serves every read until a later check finds it caught up. A read that fails on the
  replica (it stopped since the check, a recovery conflict) is run again on the primary.

The edge registers the replica for the primary's URL (``store.use_replica``, from
``Settings.replica_url``); ``PostgresDatabase`` hands each read that may go there to
``Replica.run`` and calls ``wrote`` after each commit. Without a registered replica both are
one dict lookup.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ._sessions import configure_session

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

MAX_LAG_S = 2.0
CHECK_EVERY_S = 0.5
CONNECT_TIMEOUT_S = 2
POOL_SIZE = 8
DOWN_S = 2.0  # a replica found unusable is not asked again for this long
_UNKNOWN = 2**63 - 1  # a member's last write whose WAL position could not be read

Who = tuple[str, str]  # (household, member)
P = ParamSpec("P")
T = TypeVar("T")

_WHO: ContextVar[Who | None] = ContextVar("shitsuji_reader", default=None)
_MAY_LAG: ContextVar[bool] = ContextVar("shitsuji_reads_may_lag", default=False)
_PRIMARY: ContextVar[bool] = ContextVar("shitsuji_on_primary", default=False)

# the insert position: past the commit record even before it is flushed (synchronous_commit = off)
_LSN_SQL = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"
_REPLAY_SQL = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, pg_is_in_recovery()"
# the cluster's identity, made at initdb and copied by pg_basebackup: a standby's equals its primary's
IDENTITY_SQL = "SELECT system_identifier FROM pg_control_system()"


def acting_as(household: str, member: str, *, reads_may_lag: bool) -> Callable[[], None]:
    """This request (task, and the threads it hands work to) is the member's; ``reads_may_lag``: it
    only reads, so its reads may come from the replica. Set once per request, at sign-in's check
    (a request's task ends with its context); returns what undoes it, for callers that outlive it."""
    who, lag = _WHO.set((household, member)), _MAY_LAG.set(reads_may_lag)

    def undo() -> None:
        _MAY_LAG.reset(lag)
        _WHO.reset(who)

    return undo


@contextmanager
def as_member(household: str, member: str, *, reads_may_lag: bool) -> Iterator[None]:
    """``acting_as`` for a block (scripts, workers, tests)."""
    undo = acting_as(household, member, reads_may_lag=reads_may_lag)
    try:
        yield
    finally:
        undo()


@contextmanager
def replica_reads() -> Iterator[None]:
    """Within the block, the acting member's reads may come from the replica (recall in a chat turn)."""
    token = _MAY_LAG.set(True)
    try:
        yield
    finally:
        _MAY_LAG.reset(token)


def may_lag(fn: Callable[P, T]) -> Callable[P, T]:
    """Decorate a read (recall) whose reads may come from the replica, for the acting member."""

    @functools.wraps(fn)
    def reading(*args: P.args, **kwargs: P.kwargs) -> T:
        with replica_reads():
            return fn(*args, **kwargs)

    return reading


@contextmanager
def on_primary() -> Iterator[None]:
    """Within the block, every read goes to the primary (what only the primary knows: its locks)."""
    token = _PRIMARY.set(True)
    try:
        yield
    finally:
        _PRIMARY.reset(token)


def current_lsn(conn: Any) -> int:
    """The primary's current WAL position, in bytes, on a psycopg connection."""
    row = conn.execute(_LSN_SQL).fetchone()
    return int(row[0])


def system_identifier(conn: Any) -> int:
    """The cluster's system identifier, on a psycopg connection (PUBLIC may call it by default)."""
    row = conn.execute(IDENTITY_SQL).fetchone()
    return int(row[0])


def is_read(sql: str) -> bool:
    """Whether a statement only reads (what may go to the replica)."""
    head = sql.lstrip()[:6].upper()
    return head.startswith(("SELECT", "WITH"))


class Replica:
    """One process's view of one streaming replica of one primary."""

    def __init__(
        self,
        url: str,
        primary_lsn: Callable[[], int],
        *,
        primary_identity: Callable[[], int],
        where: str,
        max_lag_s: float = MAX_LAG_S,
        check_every_s: float = CHECK_EVERY_S,
    ) -> None:
        self.url = url
        self.where = where  # the URL without its password, for logs
        self.max_lag_s = max_lag_s
        self.check_every_s = check_every_s
        self._primary_lsn = primary_lsn
        self._primary_identity = primary_identity
        self._ours: bool | None = None  # the primary's own standby? None: not known yet
        self._lock = threading.Lock()  # one thread checks the replica at a time
        self._written_lock = threading.Lock()
        self._written: dict[Who, int] = {}
        self._samples: deque[tuple[float, int]] = deque()  # (monotonic time, primary LSN then)
        self._next_check = -1e9  # monotonic time of the next check
        self._replayed = -1  # the replica's replayed LSN at the last check; -1: not usable
        self._pool: ConnectionPool | None = None
        self.served = 0  # reads answered by the replica (for tests and /metrics)

    # -- what the database calls ------------------------------------------------------------

    def run(self, work: Callable[[Any], T]) -> tuple[bool, T | None]:
        """``(True, work(conn))`` on a replica connection when the acting member's reads may come
        from it; ``(False, None)`` when they must (or had to: it failed there) go to the primary."""
        if not self._may_answer():
            return False, None
        try:
            with self._connections().connection(timeout=CONNECT_TIMEOUT_S) as conn:
                value = work(conn)
        except Exception as exc:  # down since the check, a recovery conflict: the primary answers
            log.info("replica read failed, reading the primary: %s", exc)
            self._mark_unusable()
            return False, None
        self.served += 1
        return True, value

    def _may_answer(self) -> bool:
        who = _WHO.get()
        if who is None or not _MAY_LAG.get() or _PRIMARY.get():
            return False
        replayed = self._usable_replay()
        written = self._written.get(who, -1)
        if 0 <= replayed < written:  # the member wrote since the last check: has the replica replayed it?
            replayed = self._replay_now()
        return replayed >= 0 and replayed >= written

    def wrote(self, conn: Any) -> None:
        """After a commit on ``conn`` (the primary): the acting member's reads wait for this LSN."""
        who = _WHO.get()
        if who is None:
            return
        try:
            lsn = current_lsn(conn)
        except Exception as exc:  # the write is committed: never fail it; read the primary until the next
            log.info("WAL position after a commit unknown, the member reads the primary: %s", exc)
            lsn = _UNKNOWN
        with self._written_lock:  # not the check's lock: a write never waits on a replica check
            old = self._written.get(who, -1)
            self._written[who] = lsn if old == _UNKNOWN else max(lsn, old)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    # -- the lag check ----------------------------------------------------------------------

    def _usable_replay(self) -> int:
        """The replica's replayed LSN if it is within the lag bound, else -1 (checked now and then)."""
        now = time.monotonic()
        if now < self._next_check:
            return self._replayed
        if not self._lock.acquire(blocking=False):  # another thread is checking: use what it last saw
            return self._replayed
        try:
            self._replayed = self._check(now)
            # an unreachable replica is asked again later: a connect timeout is not paid twice a second
            self._next_check = now + (
                self.check_every_s if self._replayed >= 0 else max(self.check_every_s, DOWN_S)
            )
        finally:
            self._lock.release()
        return self._replayed

    def _replay_now(self) -> int:
        """The replica's replayed LSN asked now (one query there, none on the primary); -1 if unknown."""
        try:
            replayed, in_recovery = self._replica_position()
        except Exception:
            return -1
        if in_recovery and replayed > self._replayed >= 0:
            self._replayed = replayed
        return replayed if in_recovery else -1

    def _check(self, now: float) -> int:
        try:
            primary = self._primary_lsn()
        except Exception as exc:
            log.info("primary LSN unknown, not using the replica: %s", exc)
            return -1
        self._samples.append((now, primary))
        while self._samples and self._samples[0][0] < now - self.max_lag_s:
            self._samples.popleft()
        try:
            replayed, in_recovery = self._replica_position()
        except Exception as exc:
            log.info("replica %s unreachable, reading the primary: %s", self.where, exc)
            self.close()
            return -1
        if not in_recovery:  # promoted, or not a standby at all: its rows may have parted from ours
            log.warning("replica %s is not in recovery: not reading from it", self.where)
            return -1
        if not self._same_cluster():
            return -1
        # fresh when it has replayed what the primary had written at some moment of the last max_lag_s
        if any(lsn <= replayed for _, lsn in self._samples):
            return replayed
        return -1

    def _same_cluster(self) -> bool:
        """Whether the standby is the primary's own (the same system identifier): asked at the first
        check that reaches it, then known for the process's life. A standby of another cluster, or
        one whose identifier cannot be compared, is never read — a warning says why, once."""
        if self._ours is not None:
            return self._ours
        import psycopg

        try:
            ours = self._primary_identity()
            theirs = int(self._on_replica(IDENTITY_SQL)[0])
        except psycopg.errors.InsufficientPrivilege as exc:
            log.warning(
                "replica %s not used: the system identifiers that tell whether it is the primary's own "
                "standby cannot be read (%s); let the app's role run pg_control_system() on both servers",
                self.where,
                str(exc).strip(),
            )
            self._ours = False
            return False
        except Exception as exc:  # unreachable now: asked again at a later check
            log.info("replica %s: system identifier unknown, reading the primary: %s", self.where, exc)
            return False
        self._ours = ours == theirs
        if not self._ours:
            log.warning(
                "replica %s not used: it is a standby of another cluster (system identifier %s, the "
                "primary's %s), its rows are not this database's; point the replica URL at the "
                "primary's own standby",
                self.where,
                theirs,
                ours,
            )
        return self._ours

    def _replica_position(self) -> tuple[int, bool]:
        row = self._on_replica(_REPLAY_SQL)
        return (int(row[0]) if row[0] is not None else -1), bool(row[1])

    def _on_replica(self, sql: str) -> Any:
        """One row of ``sql`` on the replica."""
        if self._pool is None:  # a short probe first: a pool would keep retrying a server that is down
            import psycopg

            with psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                row = conn.execute(sql).fetchone()
        else:
            with self._pool.connection(timeout=CONNECT_TIMEOUT_S) as conn:
                row = conn.execute(sql).fetchone()
        assert row is not None
        return row

    def _connections(self) -> ConnectionPool:
        if self._pool is None:
            from psycopg_pool import ConnectionPool

            self._pool = ConnectionPool(
                self.url,
                min_size=1,
                max_size=POOL_SIZE,  # as the primary's pool
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                configure=configure_session,  # as the primary's: the same plans for the same reads
                open=False,
                name="shitsuji-replica",
            )
            self._pool.open(wait=False)
        return self._pool

    def _mark_unusable(self) -> None:
        self._replayed = -1
        self._next_check = time.monotonic() + DOWN_S
        self.close()


# one registered replica per primary URL, for the process (the edge registers it once)
_REPLICAS: dict[str, Replica] = {}
_REPLICAS_LOCK = threading.Lock()


def register(primary_url: str, replica: Replica | None) -> None:
    """Serve lag-tolerant reads of ``primary_url`` from ``replica`` (None: stop); ``use_replica`` makes it."""
    with _REPLICAS_LOCK:
        old = _REPLICAS.pop(primary_url, None)
        if old is not None:
            old.close()
        if replica is not None:
            _REPLICAS[primary_url] = replica


def replica_of(primary_url: str) -> Replica | None:
    return _REPLICAS.get(primary_url)


def close_replicas() -> None:
    """Forget every registered replica (tests, and a process about to exit)."""
    with _REPLICAS_LOCK:
        for replica in _REPLICAS.values():
            replica.close()
        _REPLICAS.clear()
