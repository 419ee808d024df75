"""The app's PostgreSQL sessions commit as SQLite's WAL does unless the edge asks for more (issue 25).

SQLite here runs WAL with ``synchronous = NORMAL`` (no flush at commit); the PostgreSQL sessions the
app opens get ``synchronous_commit = off`` — the same promise — and ``SHITSUJI_SYNCHRONOUS_COMMIT``
keeps the flush at every commit. Checked on a real server, whose own default is ``on``.
"""

from __future__ import annotations

import psycopg
import pytest

from shitsuji.config import Settings
from shitsuji.errors import UserInputError
from shitsuji.store import SYNCHRONOUS_COMMIT, database, use_synchronous_commit


def _session_value(url: str) -> str:
    return str(database(url).execute("SHOW synchronous_commit").fetchone()[0])


def _durable_by_default(url: str) -> None:
    """PostgreSQL's own default, as a production database has it (the tests' server runs without)."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{admin.info.dbname}" SET synchronous_commit = on')


def test_the_apps_sessions_commit_without_waiting_for_the_flush_where_the_server_would_wait(
    pg_url: str,
) -> None:
    _durable_by_default(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as other:  # a client of its own keeps the database's
        assert other.execute("SHOW synchronous_commit").fetchone() == ("on",)
    assert _session_value(pg_url) == "off" == SYNCHRONOUS_COMMIT
    with database(pg_url).write() as tx:  # a transaction's connection is one of the same pool
        assert tx.execute("SHOW synchronous_commit").fetchone() == ("off",)


def test_the_edge_may_keep_the_flush_at_every_commit_even_after_connections_were_made(pg_url: str) -> None:
    _durable_by_default(pg_url)
    assert _session_value(pg_url) == "off"
    Settings.from_env({"SHITSUJI_SYNCHRONOUS_COMMIT": "on"}, db="x.db", database_url=pg_url).use_replica()
    try:
        assert _session_value(pg_url) == "on"
        with database(pg_url).write() as tx:
            assert tx.execute("SHOW synchronous_commit").fetchone() == ("on",)
    finally:
        use_synchronous_commit(pg_url, SYNCHRONOUS_COMMIT)
    assert _session_value(pg_url) == "off"


def test_the_setting_takes_postgresqls_values_and_refuses_others_by_name() -> None:
    assert Settings.from_env({}, db="x.db").synchronous_commit == "off"
    assert Settings.from_env({"SHITSUJI_SYNCHRONOUS_COMMIT": " ON "}, db="x.db").synchronous_commit == "on"
    env = {"SHITSUJI_SYNCHRONOUS_COMMIT": "remote_apply"}
    assert Settings.from_env(env, db="x.db").synchronous_commit == "remote_apply"
    for bad in ("yes", "off; DROP TABLE memories", "オフ"):
        with pytest.raises(UserInputError, match="SHITSUJI_SYNCHRONOUS_COMMIT must be one of"):
            Settings.from_env({"SHITSUJI_SYNCHRONOUS_COMMIT": bad}, db="x.db")
