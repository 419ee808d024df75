"""Reads from a streaming replica (``store._replica``) on a real primary + standby pair.

The primary is the tests' PostgreSQL; the standby is a second server from the same package, made
with pg_basebackup and fed by streaming replication (``replica_support``). Replay is paused with
``pg_wal_replay_pause()`` to make the replica lag on purpose: then a row the replica has not
replayed tells which server answered a read.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shitsuji import store
from shitsuji.config import Settings
from shitsuji.errors import UserInputError
from shitsuji.memory import open_store
from shitsuji.memory._embedders import HashEmbedder
from shitsuji.memory._engine import MemoryEngine
from shitsuji.store._sessions import PLAN_CACHE_MODE

from .pg_support import PostgresServer
from .replica_support import Standby, Stranger, pause_replay

WIFE = ("futari", "wife")
HUSBAND = ("futari", "husband")


@pytest.fixture(scope="module")
def standby(pg_server: PostgresServer) -> Iterator[Standby]:
    replica = Standby(pg_server, pg_server.folder)
    yield replica
    replica.remove()


@pytest.fixture
def pair(pg_server: PostgresServer, standby: Standby) -> Iterator[tuple[str, str]]:
    """(primary URL, replica URL) of a fresh database with a table of notes, replayed on the standby."""
    with pg_server.database() as url:
        name = urlsplit(url).path.lstrip("/")
        with store.database(url).write() as tx:
            tx.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        standby.wait_for(name, "SELECT count(*) FROM notes")
        try:
            yield url, standby.url(name)
        finally:
            if standby.sql("postgres", "SELECT pg_is_wal_replay_paused()"):
                standby.sql("postgres", "SELECT pg_wal_replay_resume()")
            store.close_replicas()
            store.close_databases()


def _note(url: str, who: tuple[str, str], note_id: int, body: str) -> None:
    with store.as_member(*who, reads_may_lag=False), store.database(url).write() as tx:
        tx.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (note_id, body))


def _bodies(url: str, who: tuple[str, str]) -> list[str]:
    with store.as_member(*who, reads_may_lag=True):
        return [r[0] for r in store.database(url).execute("SELECT body FROM notes ORDER BY id").fetchall()]


def _routed(primary: str, replica_url: str) -> store.Replica:
    """The replica registered with a long lag bound, once it has answered a read that may lag."""
    replica = store.use_replica(primary, replica_url, max_lag_s=600, check_every_s=0)
    assert replica is not None
    deadline = time.monotonic() + 30
    while replica.served == 0:
        _bodies(primary, HUSBAND)
        assert time.monotonic() < deadline, "the replica never answered"
        time.sleep(0.05)
    return replica


def test_reads_go_to_the_replica_and_the_writer_reads_their_own_write(
    pair: tuple[str, str], standby: Standby
) -> None:
    primary, replica_url = pair
    _note(primary, WIFE, 1, "牛乳を買う")
    standby.wait_for(urlsplit(replica_url).path.lstrip("/"), "SELECT 1 FROM notes WHERE id = 1")
    replica = store.use_replica(primary, replica_url, max_lag_s=600, check_every_s=0)
    assert replica is not None
    assert _bodies(primary, HUSBAND) == ["牛乳を買う"]
    assert replica.served == 1  # the husband's read came from the replica

    pause_replay(standby)  # the replica stops replaying, and stays within the (long) lag bound
    _note(primary, WIFE, 2, "卵も")
    assert _bodies(primary, WIFE) == ["牛乳を買う", "卵も"]  # her own write: read on the primary
    served = replica.served
    assert _bodies(primary, HUSBAND) == ["牛乳を買う"]  # he reads the replica, which has not replayed it
    assert replica.served == served + 1

    standby.sql("postgres", "SELECT pg_wal_replay_resume()")
    deadline = time.monotonic() + 30
    while _bodies(primary, HUSBAND) != ["牛乳を買う", "卵も"]:
        assert time.monotonic() < deadline, "the replica never caught up"
        time.sleep(0.05)
    served = replica.served
    assert _bodies(primary, WIFE) == ["牛乳を買う", "卵も"]  # caught up: her reads go there again
    assert replica.served == served + 1


def test_reads_that_must_not_lag_and_writes_stay_on_the_primary(
    pair: tuple[str, str], standby: Standby
) -> None:
    primary, replica_url = pair
    replica = _routed(primary, replica_url)
    pause_replay(standby)
    _note(primary, WIFE, 1, "sign-in rows")
    db = store.database(primary)
    served = replica.served
    assert _bodies(primary, HUSBAND) == []  # a read that may lag: the paused replica answers
    assert replica.served == served + 1
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1  # nobody acting
    with store.as_member(*HUSBAND, reads_may_lag=False):  # a POST: reads the primary
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    with store.as_member(*HUSBAND, reads_may_lag=True), store.on_primary():
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    with store.as_member(*HUSBAND, reads_may_lag=True), db.write() as tx:  # inside a transaction
        assert tx.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    assert replica.served == served + 1


def test_a_lagging_replica_is_skipped_and_used_again_once_caught_up(
    pair: tuple[str, str], standby: Standby
) -> None:
    primary, replica_url = pair
    replica = store.use_replica(primary, replica_url, max_lag_s=0.3, check_every_s=0)
    assert replica is not None
    pause_replay(standby)
    _note(primary, WIFE, 1, "shared to-do")  # the primary moves on; the replica does not
    time.sleep(0.5)  # longer than the lag bound
    served = replica.served
    assert _bodies(primary, HUSBAND) == ["shared to-do"]  # from the primary: nothing lost, nothing failed
    assert replica.served == served

    standby.sql("postgres", "SELECT pg_wal_replay_resume()")
    deadline = time.monotonic() + 30
    while replica.served == served:
        assert _bodies(primary, HUSBAND) == ["shared to-do"]
        assert time.monotonic() < deadline, "the caught-up replica was never used again"
        time.sleep(0.05)


def test_a_replica_that_is_down_leaves_reads_to_the_primary(pair: tuple[str, str], standby: Standby) -> None:
    primary, replica_url = pair
    _note(primary, WIFE, 1, "before")
    replica = _routed(primary, replica_url)  # the replica serves while it is up
    standby.stop()
    try:
        _note(primary, WIFE, 2, "after")
        served = replica.served
        for _ in range(3):  # the first read notices, later ones skip the replica: none fails
            assert _bodies(primary, HUSBAND) == ["before", "after"]
        assert replica.served == served
    finally:
        standby.start()


def test_recall_reads_the_replica_and_sees_the_members_new_memory(
    pair: tuple[str, str], standby: Standby
) -> None:
    primary, replica_url = pair
    memories = open_store(primary)
    engine = MemoryEngine(memories, HashEmbedder())
    try:
        with store.as_member(*WIFE, reads_may_lag=False):
            engine.remember("歯医者の予約は火曜日", "household/futari")
        replica = store.use_replica(primary, replica_url, max_lag_s=600, check_every_s=0)
        assert replica is not None
        standby.wait_for(urlsplit(replica_url).path.lstrip("/"), "SELECT 1 FROM memories")
        deadline = time.monotonic() + 30
        while replica.served == 0:  # until the replica is seen caught up once
            with store.as_member(*HUSBAND, reads_may_lag=False):
                engine.recall("歯医者", "household/futari", k=3)
            assert time.monotonic() < deadline, "the replica never answered a recall"
            time.sleep(0.05)
        pause_replay(standby)
        with store.as_member(*WIFE, reads_may_lag=False):  # a chat turn (POST): she remembers …
            engine.remember("紅茶はアールグレイが好き", "household/futari")
            hits = engine.recall("紅茶", "household/futari", k=3)  # … and recall, which may lag, sees it
        assert any("紅茶" in h.memory.content for h in hits)
        served = replica.served
        with store.as_member(*HUSBAND, reads_may_lag=False):
            hits = engine.recall("歯医者", "household/futari", k=3)
        assert replica.served > served  # his recall was answered by the replica
        assert any("歯医者" in h.memory.content for h in hits)
    finally:
        memories.close()


def test_a_standby_of_another_cluster_is_never_read(
    pair: tuple[str, str], pg_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    primary, _ = pair
    name = urlsplit(primary).path.lstrip("/")
    _note(primary, WIFE, 1, "ours")
    stranger = Stranger(pg_server)
    try:  # the same database name, the same table, another's rows
        stranger.admin("postgres", f"CREATE DATABASE {name}")
        stranger.admin(name, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        stranger.admin(name, "INSERT INTO notes VALUES (1, 'a stranger''s row')")
        its_standby = Standby(stranger, stranger.folder)
        try:
            its_standby.wait_for(name, "SELECT count(*) FROM notes")
            replica = store.use_replica(primary, its_standby.url(name), max_lag_s=600, check_every_s=0)
            assert replica is not None
            with caplog.at_level("WARNING", logger="shitsuji.store._replica"):
                for _ in range(3):  # the first read compares the clusters, none reads the stranger
                    assert _bodies(primary, HUSBAND) == ["ours"]
            assert replica.served == 0
            assert "another cluster" in caplog.text and "system identifier" in caplog.text
        finally:
            its_standby.remove()
    finally:
        stranger.remove()


def test_settings_name_the_replica_and_refuse_what_cannot_be_one(tmp_path: Path) -> None:
    env = {
        "SHITSUJI_DATABASE_URL": "postgresql://app@db/shitsuji",
        "SHITSUJI_REPLICA_URL": "postgresql://app@replica/shitsuji",
        "SHITSUJI_REPLICA_MAX_LAG": "0.5",
    }
    settings = Settings.from_env(env, db=tmp_path / "x.db")
    assert (settings.replica_url, settings.replica_max_lag_s) == ("postgresql://app@replica/shitsuji", 0.5)
    assert "replica/shitsuji" not in repr(settings)  # a URL may hold a password
    with pytest.raises(UserInputError, match="SHITSUJI_DATABASE_URL"):
        Settings.from_env({"SHITSUJI_REPLICA_URL": env["SHITSUJI_REPLICA_URL"]}, db=tmp_path / "x.db")
    with pytest.raises(UserInputError, match="postgresql://"):
        Settings.from_env({**env, "SHITSUJI_REPLICA_URL": "mysql://replica"}, db=tmp_path / "x.db")
    for bad in ("soon", "0", "-1", "nan", "inf"):
        with pytest.raises(UserInputError, match="SHITSUJI_REPLICA_MAX_LAG"):
            Settings.from_env({**env, "SHITSUJI_REPLICA_MAX_LAG": bad}, db=tmp_path / "x.db")


def test_a_members_pages_read_the_replica_and_show_her_own_change_at_once(
    pair: tuple[str, str], standby: Standby
) -> None:
    from fastapi.testclient import TestClient

    from .test_web_api import csrf_headers, signed_in
    from .web_support import HOME, make_site

    primary, replica_url = pair
    site = make_site(primary, None)
    try:
        wife, csrf = signed_in(site, "wife", HOME)
        husband: TestClient = signed_in(site, "husband", HOME)[0]
        replica = store.use_replica(primary, replica_url, max_lag_s=600, check_every_s=0)
        assert replica is not None
        standby.wait_for(urlsplit(replica_url).path.lstrip("/"), "SELECT 1 FROM web_sessions")

        def names(client: TestClient) -> list[str]:
            answer = client.get("/api/panels/shopping")
            assert answer.status_code == 200, answer.text
            return sorted(i["name"] for i in answer.json()["items"])

        deadline = time.monotonic() + 30
        while replica.served == 0:  # the husband's page is read on the replica once it is seen caught up
            assert names(husband) == []
            assert time.monotonic() < deadline, "the replica never answered a page"
            time.sleep(0.05)
        pause_replay(standby)
        added = wife.post(
            "/api/panel-actions",
            json={"action": "add_shopping_item", "name": "豆腐"},
            headers=csrf_headers(csrf),
        )
        assert added.status_code == 200, added.text
        assert names(wife) == ["豆腐"]  # her own write, at once (the primary)
        served = replica.served
        assert names(husband) == []  # his page: the paused replica, within the (long) bound
        assert replica.served > served
        standby.sql("postgres", "SELECT pg_wal_replay_resume()")
        while names(husband) != ["豆腐"]:
            assert time.monotonic() < deadline + 30, "the replica never caught up"
            time.sleep(0.05)
    finally:
        site.close()


def test_a_replica_connection_is_set_as_the_primarys(pair: tuple[str, str]) -> None:
    """The replica's pool configures its connections as the primary's (``store._sessions``): a read the
    replica answers is planned under the same ``plan_cache_mode`` (80f9406: ``auto`` there, the primary's
    ``force_generic_plan`` here)."""
    primary, replica_url = pair
    replica = _routed(primary, replica_url)
    asked = "SELECT current_setting('plan_cache_mode'), pg_is_in_recovery()"
    with store.as_member(*HUSBAND, reads_may_lag=True):
        on_replica = store.database(primary).execute(asked).fetchone()
    on_primary = store.database(primary).execute(asked).fetchone()
    assert on_primary == (PLAN_CACHE_MODE, False)
    assert on_replica == (PLAN_CACHE_MODE, True)  # answered by the standby, set as the primary's
    assert replica.served >= 2
