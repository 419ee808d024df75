"""The web app's JSON API through its real ASGI stack (TestClient), with the real SDK against the fake API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shitsuji.llm import text_response, tool_use_response

from .fake_anthropic import FakeMessagesAPI
from .web_support import PASSWORD, Site, fake_model, make_site


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


@pytest.fixture
def site(tmp_path: Path, api: FakeMessagesAPI) -> Iterator[Site]:
    made = make_site(tmp_path / "web.db", fake_model(api.url))
    yield made
    made.close()


def signed_in(site: Site, user: str = "wife", household: str | None = None) -> tuple[TestClient, str]:
    client = TestClient(site.app)
    body: dict[str, Any] = {"user": user, "password": PASSWORD}
    if household:
        body["household"] = household
    response = client.post("/api/session", json=body)
    assert response.status_code == 200, response.text
    return client, response.json()["csrf"]


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_chat_streams_a_card_that_survives_a_reload_and_approval_writes_once(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    api.reply(text_response("task"))  # the router
    api.reply(
        tool_use_response(
            ("toolu_1", "add_shopping_item", {"name": "牛乳", "quantity": 2}), text="追加しますね。"
        )
    )
    response = client.post("/api/chat", json={"message": "牛乳を2本"}, headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    seen = events(response.text)
    names = [name for name, _ in seen]
    assert names[:2] == ["conversation", "mode"] and names[-1] == "done"
    assert "".join(d["text"] for n, d in seen if n == "text") == "追加しますね。"
    [card] = [d for n, d in seen if n == "proposal"]
    assert card["tool"] == "add_shopping_item" and card["input"] == {"name": "牛乳", "quantity": 2}
    assert card["state"] == "pending" and card["expires_at"]
    assert client.get("/api/panels/shopping").json()["items"] == []  # nothing written yet

    reloaded = client.get("/api/conversation").json()
    kinds = [(i["kind"], i.get("role")) for i in reloaded["items"]]
    assert kinds == [("message", "user"), ("message", "assistant"), ("card", None)]
    assert reloaded["items"][2]["proposal"]["id"] == card["id"]

    approved = client.post(f"/api/proposals/{card['id']}/approve", headers={"X-CSRF-Token": csrf})
    assert approved.status_code == 200 and approved.json()["proposal"]["state"] == "approved"
    again = client.post(f"/api/proposals/{card['id']}/approve", headers={"X-CSRF-Token": csrf})
    assert again.status_code == 409 and again.json()["done"] is False
    [item] = client.get("/api/panels/shopping").json()["items"]
    assert item["name"] == "牛乳" and item["quantity"] == 2

    api.reply(text_response("task"))
    api.reply(text_response("牛乳を追加しました。"))
    client.post("/api/chat", json={"message": "ありがとう"}, headers={"X-CSRF-Token": csrf})
    told = json.dumps(api.requests[-1]["messages"], ensure_ascii=False)
    assert f"approved proposal {card['id']}" in told  # the assistant hears of the approval next turn


def test_signed_out_visitors_reach_only_sign_in_and_health(site: Site) -> None:
    client = TestClient(site.app)
    assert client.get("/api/health").json()["ok"] is True
    assert client.get("/login").status_code == 200
    for path in ("/api/me", "/api/conversation", "/api/memories", "/api/proposals", "/api/panels/shopping"):
        assert client.get(path).status_code == 401, path
    assert client.get("/api/openapi.json").status_code == 401
    page = client.get("/memories", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login"


def test_no_model_configured_says_how_and_the_rest_still_works(tmp_path: Path) -> None:
    site = make_site(tmp_path / "web.db", None)
    try:
        client, csrf = signed_in(site, "husband", "futari")
        response = client.post("/api/chat", json={"message": "こんにちは"}, headers={"X-CSRF-Token": csrf})
        assert response.status_code == 503 and "ANTHROPIC_API_KEY" in response.json()["error"]
        assert client.get("/api/panels/todos").status_code == 200
        assert client.get("/api/memories").status_code == 200
        assert client.get("/api/proposals").status_code == 200
        assert "ANTHROPIC_API_KEY" in client.get("/").text
    finally:
        site.close()
