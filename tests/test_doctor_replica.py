"""``shitsuji doctor`` checks the read replica (``SHITSUJI_REPLICA_URL``) on a real primary + standby pair:
a healthy standby, one whose replay is paused behind a write, one that is stopped, and a "replica" that is
the primary itself (not in recovery). The standby is made by ``replica_support`` (pg_basebackup)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from shitsuji import store

from .conftest import Cli
from .pg_support import PostgresServer
from .replica_support import Standby, pause_replay, standby_of


@pytest.fixture(scope="module")
def standby(pg_server: PostgresServer) -> Iterator[Standby]:
    with standby_of(pg_server) as replica:
        yield replica


@pytest.fixture
def primary(pg_server: PostgresServer, standby: Standby) -> Iterator[str]:
    """A fresh database on the primary, with a table the standby has replayed."""
    with pg_server.database() as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
        standby.wait_for(urlsplit(url).path.lstrip("/"), "SELECT count(*) FROM notes")
        try:
            yield url
        finally:
            if standby.sql("postgres", "SELECT pg_is_wal_replay_paused()"):
                standby.sql("postgres", "SELECT pg_wal_replay_resume()")
            store.close_databases()


def _doctor(cli: Cli, monkeypatch: pytest.MonkeyPatch, primary: str, replica: str) -> dict[str, Any]:
    monkeypatch.setenv("SHITSUJI_DATABASE_URL", primary)
    monkeypatch.setenv("SHITSUJI_REPLICA_URL", replica)
    monkeypatch.setenv("SHITSUJI_REPLICA_MAX_LAG", "1")
    run = cli("doctor", "--json")
    report = json.loads(run.out)
    return {c["name"]: c for c in report["checks"] if c["name"].startswith("replica")}


def _standby_url(standby: Standby, primary: str) -> str:
    return standby.url(urlsplit(primary).path.lstrip("/"))


def test_a_healthy_standby_passes_every_replica_check(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, primary: str, standby: Standby
) -> None:
    checks = _doctor(cli, monkeypatch, primary, _standby_url(standby, primary))
    assert {name: c["status"] for name, c in checks.items()} == {
        "replica": "ok",
        "replica standby": "ok",
        "replica cluster": "ok",
        "replica lag": "ok",
    }
    assert "caught up" in checks["replica lag"]["detail"]
    assert "replica" in cli("doctor").out  # one line per check in the text report too


def test_a_standby_paused_behind_a_write_is_reported_lagging(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, primary: str, standby: Standby
) -> None:
    pause_replay(standby)
    with psycopg.connect(primary, autocommit=True) as conn:
        conn.execute("INSERT INTO notes VALUES ('after the pause')")
    checks = _doctor(cli, monkeypatch, primary, _standby_url(standby, primary))
    lag = checks["replica lag"]
    assert lag["status"] == "warn"
    assert "paused" in lag["detail"] and "reads go to the primary" in lag["detail"]
    assert "pg_wal_replay_resume()" in lag["fix"]
    assert checks["replica standby"]["status"] == "ok"


def test_a_primary_given_as_the_replica_is_not_a_standby(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, primary: str
) -> None:
    checks = _doctor(cli, monkeypatch, primary, primary)
    assert checks["replica"]["status"] == "ok"
    assert checks["replica standby"]["status"] == "warn"
    assert "pg_is_in_recovery() is false" in checks["replica standby"]["detail"]
    assert "replica lag" not in checks


def test_a_stopped_standby_is_named_and_reads_go_to_the_primary(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, primary: str, standby: Standby
) -> None:
    url = _standby_url(standby, primary)
    standby.stop()
    try:
        checks = _doctor(cli, monkeypatch, primary, url)
    finally:
        standby.start()
    assert list(checks) == ["replica"]
    assert checks["replica"]["status"] == "warn"
    assert "did not answer" in checks["replica"]["detail"]
    assert "every read goes to the primary" in checks["replica"]["detail"]  # a warning: the app works
