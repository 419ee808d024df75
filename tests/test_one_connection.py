"""A worker thread's trip on one pooled connection (``Database.one_connection``, issue 25): a chat turn's
start (web or LINE: ``ChatService.begin(start=True)``) sends six statements in turn and took the pool's
connection for each. Counted on the real pool of a
real PostgreSQL (its ``getconn`` wrapped, calling through), beside the real web app and a scripted model."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from types import CodeType, FrameType
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shitsuji.line import LineChannel
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.store import database
from shitsuji.store._database import _pool

from .line_support import WIFE, line_site
from .web_support import HOME, PASSWORD, make_site

SCHEMA_SQL = "CREATE TABLE IF NOT EXISTS kept_rows (id INTEGER PRIMARY KEY, what TEXT NOT NULL)"


class Checkouts:
    """The pool's ``getconn`` calls, counted as they pass through to the real one, each with the code
    on its thread's stack then (``within``)."""

    def __init__(self, pool: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        self.stacks: list[set[CodeType]] = []
        real = pool.getconn

        def getconn(*args: Any, **kwargs: Any) -> Any:
            self.n += 1
            frame: FrameType | None = sys._getframe(1)
            stack = set()
            while frame is not None:
                stack.add(frame.f_code)
                frame = frame.f_back
            self.stacks.append(stack)
            return real(*args, **kwargs)

        monkeypatch.setattr(pool, "getconn", getconn)

    def within(self, function: Callable[..., Any], since: int = 0) -> int:
        """The check-outs from the ``since``-th on taken while ``function`` ran on that thread."""
        return sum(function.__code__ in stack for stack in self.stacks[since:])


@pytest.fixture
def pool_checkouts(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Checkouts]]:
    database(pg_url)  # the process's database and its pool
    yield pg_url, Checkouts(_pool(pg_url), monkeypatch)


def _out(url: str) -> int:
    """The pool's connections not in it now (the process's holder lock keeps one for its life)."""
    stats = _pool(url).get_stats()
    return int(stats.get("pool_size", 0)) - int(stats.get("pool_available", 0))


def test_a_web_turn_takes_a_pooled_connection_once_for_its_start(
    pool_checkouts: tuple[str, Checkouts],
) -> None:
    url, checkouts = pool_checkouts
    site = make_site(url, ScriptedModel(lambda request: text_response("かしこまりました")))
    try:
        client = TestClient(site.app)
        signed = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": HOME})
        csrf = signed.json()["csrf"]
        for text in ("こんにちは", "牛乳を買ったよ"):
            before, out = checkouts.n, _out(url)
            response = client.post("/api/chat", json={"message": text}, headers={"X-CSRF-Token": csrf})
            assert response.status_code == 200 and "event: done" in response.text, response.text
        # the second turn: its start's six statements on one connection, the reply's write on another
        # (7 at 453f1c1: one a statement)
        assert checkouts.n - before <= 2
        assert _out(url) == out  # every connection taken for the turn given back
    finally:
        site.close()


def test_a_line_turn_takes_a_pooled_connection_once_for_its_start(
    pool_checkouts: tuple[str, Checkouts],
) -> None:
    """LINE's worker trip that claims and starts a turn (``LineChannel._begin``) follows the same rule
    as the web's, from the service: the member's context read (``ChatService.begin`` given how to read
    it), the claim, the conversation, the words and recall on one connection (6 check-outs at a3c941b:
    one a statement; 2 at 9a2da6b: the context read apart, before the service was called)."""
    url, checkouts = pool_checkouts
    with line_site(url) as site:
        site.link(WIFE, "wife")
        for text in ("こんにちは", "牛乳を買ったよ"):
            since = checkouts.n
            site.say(WIFE, text)
            site.settled()
        assert site.answers(WIFE)[-1] == "はい"  # the second turn ran to its answer
        assert checkouts.within(LineChannel._begin, since) == 1


def test_one_connection_reads_writes_and_gives_it_back(pool_checkouts: tuple[str, Checkouts]) -> None:
    url, checkouts = pool_checkouts
    db = database(url)
    db.execute(SCHEMA_SQL)
    before, out = checkouts.n, _out(url)
    with db.one_connection():
        db.execute("INSERT INTO kept_rows (id, what) VALUES (1, 'lone')")  # autocommit: committed at once
        seen: list[Any] = []
        other = threading.Thread(
            target=lambda: seen.extend(db.execute("SELECT what FROM kept_rows").fetchall())
        )
        other.start()
        other.join()
        assert seen == [("lone",)]  # another thread, its own connection, sees it
        with db.write() as tx:
            tx.execute("INSERT INTO kept_rows (id, what) VALUES (2, 'in a transaction')")
        with pytest.raises(RuntimeError), db.write() as tx:
            tx.execute("INSERT INTO kept_rows (id, what) VALUES (3, 'rolled back')")
            raise RuntimeError("undone")
        db.write_one("INSERT INTO kept_rows (id, what) VALUES (4, 'one statement')")
        with db.one_connection():  # nested: the outer block's connection
            rows = db.execute("SELECT id FROM kept_rows ORDER BY id").fetchall()
    assert rows == [(1,), (2,), (4,)]
    assert checkouts.n - before == 2  # the block's one, and the other thread's read
    assert _out(url) == out


def test_a_failed_statement_inside_one_connection_leaves_the_next_statement_working(
    pool_checkouts: tuple[str, Checkouts],
) -> None:
    url, _ = pool_checkouts
    db = database(url)
    out = _out(url)
    with db.one_connection():
        with pytest.raises(Exception, match="no_such_table"):
            db.execute("SELECT * FROM no_such_table")
        assert db.execute("SELECT 1").fetchone() == (1,)
    assert _out(url) == out
