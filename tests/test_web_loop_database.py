"""No request makes the event loop wait on the database (issue 19): every statement the web app runs
while serving is run by a worker thread (``off_loop``, FastAPI's ``def`` routes), never by the loop.

The watch is SQLite's own statement trace on the process's connection: each statement is reported
on the thread that runs it, and a thread whose asyncio loop is running is the app's loop. The test
signs in, opens every page and GET endpoint, and goes through the writes a member makes (settings,
password, invitation and join, chat with a card and its approval, panel actions, reminders,
sign-out): a new store call made directly in an ``async def`` route shows up here by its SQL.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shitsuji.llm import text_response, tool_use_response
from shitsuji.privacy import shared_scope
from shitsuji.store import SQLiteDatabase, database

from .fake_anthropic import FakeMessagesAPI
from .test_web_api import csrf_headers, signed_in
from .web_support import HOME, PASSWORD, Site, fake_model, make_site

NEW_PASSWORD = "battery staple 電池"
SKIP_GET = {"/api/events"}  # a stream that stays open (its reads are off the loop: test_web_hub)


class LoopWatch:
    """The statements a database ran on a thread with a running event loop."""

    def __init__(self, db: SQLiteDatabase) -> None:
        self.on_loop: list[str] = []
        self._lock = threading.Lock()
        self._db = db
        db.conn.set_trace_callback(self._trace)

    def _trace(self, sql: str) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a worker thread (or the test's own)
        with self._lock:
            self.on_loop.append(" ".join(sql.split())[:120])

    def close(self) -> None:
        self._db.conn.set_trace_callback(None)


@pytest.fixture
def watched(tmp_path: Path, api: FakeMessagesAPI) -> Iterator[tuple[Site, LoopWatch]]:
    site = make_site(tmp_path / "web.db", fake_model(api.url))
    db = database(site.db)
    assert isinstance(db, SQLiteDatabase)
    watch = LoopWatch(db)
    try:
        yield site, watch
    finally:
        watch.close()
        site.close()


def test_the_watch_sees_a_statement_run_on_a_loop(tmp_path: Path) -> None:
    db = database(tmp_path / "w.db")
    assert isinstance(db, SQLiteDatabase)
    watch = LoopWatch(db)

    async def blocking_route() -> None:
        db.execute("SELECT 1")  # what an async route calling a store directly does
        await asyncio.to_thread(db.execute, "SELECT 2")  # off the loop: not seen

    asyncio.run(blocking_route())
    watch.close()
    assert watch.on_loop == ["SELECT 1"]


def _routes(routes: list[Any]) -> Iterator[Any]:
    for route in routes:
        inner = getattr(route, "original_router", None)  # an included router (FastAPI keeps it whole)
        yield from _routes(inner.routes) if inner is not None else [route]


def _get_routes(site: Site) -> list[str]:
    """Every GET path without a parameter (pages and API)."""
    paths = []
    for route in _routes(site.app.routes):
        path = getattr(route, "path", "")
        methods = getattr(route, "methods", None) or set()
        if "GET" in methods and "{" not in path and path not in SKIP_GET and not path.startswith("/static"):
            paths.append(path)
    return sorted(set(paths))


def test_serving_a_member_never_runs_a_statement_on_the_loop(
    watched: tuple[Site, LoopWatch], api: FakeMessagesAPI
) -> None:
    site, watch = watched
    client, csrf = signed_in(site, "wife", HOME)
    headers = csrf_headers(csrf)
    with client:  # the app's start-up and background work run too
        paths = _get_routes(site)
        assert {"/", "/settings", "/memories", "/api/me", "/api/proposals", "/api/audit"} <= set(paths)
        for path in paths:
            assert client.get(path).status_code < 500, path

        # settings: the time zone (page and API), the password (API, then the page's form)
        assert (
            client.put("/api/time-zone", json={"time_zone": "Asia/Tokyo"}, headers=headers).status_code == 200
        )
        form = {"time_zone": "Europe/London", "csrf": csrf}
        assert client.post("/settings/time-zone", data=form, follow_redirects=False).status_code == 303
        changed = client.put(
            "/api/password", json={"current": PASSWORD, "password": NEW_PASSWORD}, headers=headers
        )
        assert changed.status_code == 200, changed.text
        csrf = changed.json()["csrf"]
        form = {"current": NEW_PASSWORD, "password": PASSWORD, "password2": PASSWORD, "csrf": csrf}
        assert client.post("/settings/password", data=form, follow_redirects=False).status_code == 303
        csrf = client.get("/api/me").json()["csrf"]
        headers = csrf_headers(csrf)

        # a new member joins through a link (API), a second one through the page
        link = client.post("/api/invitations", json={"user": "child"}, headers=headers).json()["link"]
        joined = TestClient(site.app).post(
            "/api/join", json={"token": link.rsplit("/", 1)[1], "password": PASSWORD}
        )
        assert joined.status_code == 200, joined.text
        link = client.post("/api/invitations", json={"user": "grandma"}, headers=headers).json()["link"]
        visitor = TestClient(site.app)
        page = visitor.get(f"/join/{link.rsplit('/', 1)[1]}")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token is not None, page.text
        form = {"password": PASSWORD, "password2": PASSWORD, "csrf": token.group(1)}
        assert (
            visitor.post(f"/join/{link.rsplit('/', 1)[1]}", data=form, follow_redirects=False).status_code
            == 303
        )

        # a chat turn with a card, approved; a panel action; reminders; notifications
        api.reply(text_response("task"))
        api.reply(
            tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳"}), text="追加しますね。")
        )
        streamed = client.post("/api/chat", json={"message": "牛乳を買う"}, headers=headers)
        assert streamed.status_code == 200, streamed.text
        [card] = site.backend.butler.proposals.list(household=HOME)
        assert client.post(f"/api/proposals/{card.id}/approve", headers=headers).status_code == 200
        acted = client.post(
            "/api/panel-actions", json={"action": "add_todo", "title": "ゴミ出し"}, headers=headers
        )
        assert acted.status_code == 200, acted.text
        assert client.put("/api/panel", json={"name": "shopping"}, headers=headers).status_code == 200
        assert client.post("/api/conversations", headers=headers).status_code == 200
        memory = site.backend.memory.remember("牛乳は低脂肪", shared_scope(HOME)).memory.id
        assert client.get("/api/memories", params={"q": "牛乳"}).status_code == 200
        assert client.post(f"/api/memories/{memory}/forget", headers=headers).status_code == 200
        assert client.post(f"/api/memories/{memory}/restore", headers=headers).status_code == 200
        assert client.put("/api/reminders", json={"lead_minutes": 15}, headers=headers).status_code == 200
        form = {"reminders": "on", "lead_minutes": "20", "digest_at": "07:30", "csrf": csrf}
        assert client.post("/settings/reminders", data=form, follow_redirects=False).status_code == 303
        assert client.post("/api/notifications/read", headers=headers).status_code < 500
        assert client.post("/api/line/code", headers=headers).status_code == 200
        assert client.request("DELETE", "/api/line", headers=headers).status_code == 200
        assert client.request("DELETE", "/api/session", headers=headers).status_code == 200
        page = client.get("/login")  # and back in through the sign-in page's form
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token is not None
        form = {"user": "wife", "household": HOME, "password": PASSWORD, "csrf": token.group(1)}
        assert client.post("/login", data=form, follow_redirects=False).status_code == 303
    assert watch.on_loop == []
