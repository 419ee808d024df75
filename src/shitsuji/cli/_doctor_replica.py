"""``shitsuji doctor``'s look at the read replica (``SHITSUJI_REPLICA_URL``), one line per check.

Why a check of its own: the app never fails because of the replica (a standby that is down,
lagging or promoted gets no reads, ``store._replica``), so a misconfigured one is silent — every
read quietly lands on the primary, or worse, a standby of *another* cluster answers. The doctor
says which of the four things is wrong:

- **reachable**: the standby answers a connection (else reads go to the primary);
- **a standby**: ``pg_is_in_recovery()`` is true there (a primary or a promoted standby has
  parted from our rows, so the app never reads it);
- **the same cluster**: its system identifier is the primary's (``pg_control_system()``; a
  standby of another server holds other rows: a failure);
- **lag**: it replays what the primary had written within ``SHITSUJI_REPLICA_MAX_LAG`` seconds
  (measured as the app does: the primary's WAL position now, then waiting up to the bound for the
  standby to replay past it).

It reads and never writes, as the rest of the doctor.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ._check import TIMEOUT_S, Check

if TYPE_CHECKING:
    from ..config import Settings

POLL_S = 0.05
_REPLAY = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, pg_is_wal_replay_paused()"
# the insert position: past the last commit record even before the WAL writer has written it out
# (synchronous_commit = off, the default: pg_current_wal_lsn() may stop short of the last commit)
_WRITTEN = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"
_IDENTITY = "SELECT system_identifier FROM pg_control_system()"
_FIX_URL = "point SHITSUJI_REPLICA_URL at a streaming standby of the primary (pg_basebackup -R), or unset it"


def replica_checks(settings: Settings) -> list[Check]:
    """The replica's checks, none without ``SHITSUJI_REPLICA_URL`` (or without a PostgreSQL primary)."""
    if settings.replica_url is None or settings.database_url is None:
        return []
    import psycopg

    from ..store import redact

    where = redact(settings.replica_url)
    try:
        replica = psycopg.connect(settings.replica_url, autocommit=True, connect_timeout=int(TIMEOUT_S))
    except psycopg.Error as exc:
        return [
            Check(
                "replica",
                "warn",
                f"the standby at {where} did not answer: {_reason(exc)}; every read goes to the primary",
                "start the standby, or correct SHITSUJI_REPLICA_URL",
            )
        ]
    try:
        with replica:
            return [Check("replica", "ok", f"the standby at {where} answers"), *_standby(settings, replica)]
    except psycopg.Error as exc:  # it stopped between two checks
        return [Check("replica", "warn", f"the standby at {where} stopped answering: {_reason(exc)}")]


def _standby(settings: Settings, replica: Any) -> list[Check]:
    import psycopg

    assert settings.database_url is not None
    if not replica.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
        return [
            Check(
                "replica standby",
                "warn",
                "not a standby (pg_is_in_recovery() is false: a primary, or a promoted standby): "
                "the app reads nothing there, every read goes to the primary",
                _FIX_URL,
            )
        ]
    checks = [Check("replica standby", "ok", "in recovery: a hot standby")]
    try:
        primary = psycopg.connect(settings.database_url, autocommit=True, connect_timeout=int(TIMEOUT_S))
    except psycopg.Error:  # named by the database check
        return checks
    with primary:
        same = _same_cluster(primary, replica)
        checks.append(same)
        if same.status != "fail":
            checks.append(_lag(primary, replica, settings.replica_max_lag_s))
    return checks


def _same_cluster(primary: Any, replica: Any) -> Check:
    import psycopg

    try:
        ours = int(primary.execute(_IDENTITY).fetchone()[0])
        theirs = int(replica.execute(_IDENTITY).fetchone()[0])
    except psycopg.Error as exc:  # pg_control_system() needs a superuser or pg_monitor here
        return Check(
            "replica cluster",
            "warn",
            f"system identifiers not readable: {_reason(exc)}",
            "grant pg_monitor to the app's role on both servers to let the doctor compare them",
        )
    if ours != theirs:
        return Check(
            "replica cluster",
            "fail",
            f"the standby belongs to another cluster (system identifier {theirs}, the primary's {ours}): "
            "its rows are not this database's",
            _FIX_URL,
        )
    return Check("replica cluster", "ok", f"the primary's own standby (system identifier {ours})")


def _lag(primary: Any, replica: Any, max_lag_s: float) -> Check:
    """Whether the standby replays, within ``max_lag_s``, what the primary had written when asked."""
    written = int(primary.execute(_WRITTEN).fetchone()[0])
    start = time.monotonic()
    while True:
        replayed, paused = replica.execute(_REPLAY).fetchone()
        took = time.monotonic() - start
        if replayed is not None and int(replayed) >= written:
            return Check(
                "replica lag",
                "ok",
                f"caught up with the primary within {took:.2f} s (bound SHITSUJI_REPLICA_MAX_LAG {max_lag_s:g} s)",
            )
        if took > max_lag_s:
            behind = written - int(replayed or 0)
            why = "replay is paused (pg_wal_replay_resume() on the standby)" if paused else "a slow standby?"
            return Check(
                "replica lag",
                "warn",
                f"{behind:,} bytes of WAL behind the primary for more than {max_lag_s:g} s ({why}): "
                "reads go to the primary until it catches up",
                "SELECT pg_wal_replay_resume() on the standby"
                if paused
                else "look at the standby's disk and network, or raise SHITSUJI_REPLICA_MAX_LAG",
            )
        time.sleep(POLL_S)


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
