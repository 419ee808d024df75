"""The web app's JSON API through its real ASGI stack (TestClient), with the real SDK against the fake API."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from shitsuji.household import HouseholdStore
from shitsuji.llm import ScriptedModel, text_response, tool_use_response
from shitsuji.store import database
from shitsuji.web import Member
from shitsuji.web._member import message_text
from shitsuji.web._security import SESSION_COOKIE

from .fake_anthropic import FakeMessagesAPI
from .web_support import PASSWORD, Site, make_site, serving


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


# -- helpers for the tests below ---------------------------------------------

OWN = "household/futari/user/wife"
SHARED = "household/futari"
SPOUSE = "household/futari/user/husband"
NEXT_DOOR = "household/tonari/user/neighbour"


def csrf_headers(csrf: str) -> dict[str, str]:
    return {"X-CSRF-Token": csrf}


def household_member(site: Site, user: str) -> tuple[TestClient, str]:
    return signed_in(site, user, "tonari" if user == "neighbour" else "futari")


def say(api: FakeMessagesAPI, text: str, *, delay_s: float = 0.0) -> None:
    """Script one ordinary turn: the router's word, then the answer."""
    api.reply(text_response("task"), delay_s=delay_s)
    api.reply(text_response(text))


def chat(client: TestClient, csrf: str, message: str, **extra: Any) -> list[tuple[str, dict[str, Any]]]:
    response = client.post("/api/chat", json={"message": message, **extra}, headers=csrf_headers(csrf))
    assert response.status_code == 200, response.text
    return events(response.text)


def remember(site: Site, text: str, scope: str, **kwargs: Any) -> str:
    return site.backend.memory.remember(text, scope, **kwargs).memory.id


def propose(site: Site, home: str, user: str, name: str = "牛乳", conversation: str | None = None) -> str:
    """A pending card for ``user`` (as the chat would make it), adding ``name`` to the shopping list."""
    ctx = replace(site.backend.context(Member(home, user)), conversation=conversation)
    tool = site.backend.butler.toolbox.get("add_shopping_item")
    assert tool is not None
    return site.backend.butler.proposals.propose(tool, {"name": name, "quantity": 1}, ctx).id


def state_of(site: Site, proposal_id: str) -> str:
    return site.backend.butler.proposals.get(proposal_id).status


def messages_of(site: Site, conversation_id: str) -> list[tuple[object, str]]:
    rows = site.backend.butler.conversations.rows(conversation_id)
    return [(r["role"], message_text(json.loads(str(r["content"])))) for r in rows]


def cookie_header(response: Any, name: str) -> str:
    [header] = [h for h in response.headers.get_list("set-cookie") if h.startswith(f"{name}=")]
    return header


# -- session ------------------------------------------------------------------


def test_the_warm_server_freezes_its_start_up_heap_and_lets_it_go_when_it_stops(site: Site) -> None:
    import gc
    import time

    assert gc.get_freeze_count() == 0
    with TestClient(site.app) as client:  # the lifespan runs: warm-up in the background
        deadline = time.monotonic() + 120  # generous: a busy machine
        while client.get("/api/health").json()["warming_up"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.get("/api/health").json()["warming_up"] is False
        assert (
            gc.get_freeze_count() > 1000
        )  # modules, the app, the loaded indexes: out of the collector's way
    assert gc.get_freeze_count() == 0  # stopped: collectable again


def test_health_is_public_and_a_session_is_signed_in_until_signed_out(site: Site) -> None:
    client = TestClient(site.app)
    # not started (no lifespan here): still warming up, and answering
    assert client.get("/api/health").json() == {"ok": True, "model_ready": True, "warming_up": True}
    response = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": "futari"})
    assert response.status_code == 200
    me = response.json()
    assert me["user"] == "wife" and me["household"] == "futari" and me["members"] == ["wife", "husband"]
    assert me["model_ready"] is True and me["model_problem"] is None and len(me["csrf"]) >= 20
    token = client.cookies[SESSION_COOKIE]
    assert client.get("/api/me").json() == me

    out = client.delete("/api/session", headers=csrf_headers(me["csrf"]))
    assert out.status_code == 200 and out.json() == {"signed_out": "wife"}
    assert client.get("/api/me").status_code == 401
    # the server forgot the session: the old cookie, sent again by hand, no longer works
    stale = TestClient(site.app, cookies={SESSION_COOKIE: token})
    assert stale.get("/api/me").status_code == 401
    assert stale.get("/api/me").json() == {"error": "sign in first"}


def test_the_session_cookie_is_http_only_and_same_site_lax_and_secure_when_asked(tmp_path: Path) -> None:
    plain = make_site(tmp_path / "plain.db", None)
    forced = make_site(tmp_path / "forced.db", None, secure_cookies=True)
    try:
        body = {"user": "wife", "password": PASSWORD, "household": "futari"}
        header = cookie_header(TestClient(plain.app).post("/api/session", json=body), SESSION_COOKIE)
        flags = {part.strip().lower() for part in header.split(";")[1:]}
        assert {"httponly", "samesite=lax", "path=/"} <= flags and "secure" not in flags
        assert any(f.startswith("max-age=") for f in flags)

        header = cookie_header(TestClient(forced.app).post("/api/session", json=body), SESSION_COOKIE)
        flags = {part.strip().lower() for part in header.split(";")[1:]}
        assert {"httponly", "samesite=lax", "secure", "path=/"} <= flags

        # not forced either way: Secure exactly when the request came over https
        https = TestClient(plain.app, base_url="https://testserver")
        header = cookie_header(https.post("/api/session", json=body), SESSION_COOKIE)
        assert "secure" in {part.strip().lower() for part in header.split(";")[1:]}
    finally:
        plain.close()
        forced.close()


def test_wrong_sign_ins_are_refused_then_rate_limited_even_with_the_right_password(site: Site) -> None:
    client = TestClient(site.app)
    wrong = {"user": "wife", "password": "not the password", "household": "futari"}
    right = {**wrong, "password": PASSWORD}
    for attempt in range(5):
        response = client.post("/api/session", json=wrong)
        assert response.status_code == 400, attempt
        assert response.json() == {"error": "wrong user or password"}
        assert "set-cookie" not in response.headers
    limited = client.post("/api/session", json=right)
    assert limited.status_code == 429 and "too many failed sign-ins" in limited.json()["error"]
    assert 0 < int(limited.headers["Retry-After"]) <= 15 * 60
    assert "set-cookie" not in limited.headers and SESSION_COOKIE not in client.cookies
    assert client.get("/api/me").status_code == 401
    # the limit is kept in the database: a restarted app still refuses
    again = make_site(site.db, None)
    try:
        assert TestClient(again.app).post("/api/session", json=right).status_code == 429
    finally:
        again.close()


def test_sign_in_tells_nothing_about_who_exists(site: Site) -> None:
    client = TestClient(site.app)
    tries = [
        {"user": "nobody", "password": PASSWORD, "household": "futari"},
        {"user": "wife", "password": PASSWORD, "household": "tonari"},  # not a member there
        {"user": "wife", "password": PASSWORD, "household": "nowhere"},
        {"user": "wife", "password": PASSWORD},  # two households: which one?
    ]
    for body in tries:
        response = client.post("/api/session", json=body)
        assert response.status_code == 400 and response.json() == {"error": "wrong user or password"}, body
    assert SESSION_COOKIE not in client.cookies


def test_sign_in_takes_only_json_with_known_fields(site: Site) -> None:
    client = TestClient(site.app)
    body = {"user": "wife", "password": PASSWORD, "household": "futari"}
    # a cross-site form can post text/plain but never application/json: no login CSRF
    plain = client.post("/api/session", content=json.dumps(body), headers={"content-type": "text/plain"})
    assert plain.status_code == 422 and "set-cookie" not in plain.headers
    extra = client.post("/api/session", json={**body, "admin": True})
    assert extra.status_code == 422 and "admin: Extra inputs are not permitted" in extra.json()["error"]
    empty = client.post("/api/session", json={**body, "password": ""})
    assert empty.status_code == 422 and "password" in empty.json()["error"]
    assert SESSION_COOKIE not in client.cookies
    # none of these counted as a failed sign-in
    assert client.post("/api/session", json=body).status_code == 200


def test_setting_a_new_password_ends_the_members_sessions(site: Site) -> None:
    client, _ = signed_in(site, "wife", "futari")
    spouse, _ = signed_in(site, "husband", "futari")
    site.backend.accounts.set_password("futari", "wife", "a brand new password")
    assert client.get("/api/me").status_code == 401
    assert spouse.get("/api/me").status_code == 200  # only her sessions ended
    fresh = TestClient(site.app)
    old = {"user": "wife", "password": PASSWORD, "household": "futari"}
    assert fresh.post("/api/session", json=old).status_code == 400
    new = {**old, "password": "a brand new password"}
    assert fresh.post("/api/session", json=new).status_code == 200


def test_writes_without_the_sessions_csrf_token_are_refused_and_change_nothing(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, _ = signed_in(site, "wife", "futari")
    _, spouse_csrf = signed_in(site, "husband", "futari")
    conversation = client.get("/api/conversation").json()["id"]
    card = propose(site, "futari", "wife", conversation=conversation)
    memory = remember(site, "妻は紅茶が好き", OWN)
    writes: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/api/chat", {"message": "牛乳を買って"}),
        ("POST", "/api/conversations", None),
        ("PUT", "/api/panel", {"name": "shopping"}),
        ("POST", f"/api/proposals/{card}/approve", None),
        ("POST", f"/api/proposals/{card}/reject", None),
        ("PATCH", f"/api/memories/{memory}", {"content": "妻はコーヒーが好き"}),
        ("POST", f"/api/memories/{memory}/forget", None),
        ("DELETE", "/api/session", None),
    ]
    for headers in ({}, {"X-CSRF-Token": "forged"}, {"X-CSRF-Token": spouse_csrf}, {"X-CSRF-Token": ""}):
        for method, path, body in writes:
            response = client.request(method, path, json=body, headers=headers)
            assert response.status_code == 403, (method, path, headers)
            assert "CSRF" in response.json()["error"]
    assert api.requests == []
    assert client.get("/api/me").status_code == 200
    shown = client.get("/api/conversation").json()
    assert shown["id"] == conversation and shown["panel"] is None
    assert [i["kind"] for i in shown["items"]] == ["card"]  # no message was taken
    assert site.backend.butler.segments.current(conversation) is None
    assert state_of(site, card) == "pending"
    assert site.backend.memory.get(memory).content == "妻は紅茶が好き"
    assert site.backend.memory.get(memory).deleted_at is None
    assert client.get("/api/panels/shopping").json()["items"] == []
    # reads need no token
    assert client.get(f"/api/proposals/{card}").status_code == 200


# -- chat ---------------------------------------------------------------------


def test_bad_chat_input_gets_a_clear_4xx_and_nothing_is_said(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    neighbour, _ = household_member(site, "neighbour")
    next_door = neighbour.get("/api/conversation").json()["id"]
    conversation = client.get("/api/conversation").json()["id"]
    headers = {**csrf_headers(csrf), "content-type": "application/json"}

    def post(content: bytes | str | Iterator[bytes]) -> Any:
        return client.post("/api/chat", content=content, headers=headers)

    long = post(json.dumps({"message": "あ" * 8001}))
    assert long.status_code == 422
    assert long.json()["error"] == "invalid request: message: String should have at most 8000 characters"
    huge = post(json.dumps({"message": "x" * 70_000}))
    assert huge.status_code == 413 and "larger than 65,536 bytes" in huge.json()["error"]
    broken = post('{"message": "牛乳')
    assert broken.status_code == 422 and "JSON" in broken.json()["error"]
    extra = post(json.dumps({"message": "牛乳", "model": "opus"}))
    assert extra.status_code == 422 and "model: Extra inputs are not permitted" in extra.json()["error"]
    missing = post(json.dumps({"text": "牛乳"}))
    assert missing.status_code == 422 and "message: Field required" in missing.json()["error"]
    blank = post(json.dumps({"message": "  \n "}))
    assert blank.status_code == 400 and "the message is empty" in blank.json()["error"]
    wrong_type = post(json.dumps({"message": ["牛乳"]}))
    assert wrong_type.status_code == 422 and "message" in wrong_type.json()["error"]
    theirs = post(json.dumps({"message": "牛乳", "conversation": next_door}))
    assert theirs.status_code == 404 and next_door in theirs.json()["error"]
    unknown = post(json.dumps({"message": "牛乳", "conversation": "c_000000000000"}))
    assert unknown.status_code == 404

    assert api.requests == []  # the model never heard any of it
    assert messages_of(site, conversation) == [] and messages_of(site, next_door) == []


def test_chat_asks_who_is_there_before_it_reads_the_body(site: Site, api: FakeMessagesAPI) -> None:
    """401 (signed out) and 403 (no CSRF token) come before any 422 for the body: a stranger learns
    nothing about the API's fields; a signed-in member gets the clear 422."""
    bad_bodies: list[dict[str, Any]] = [
        {"json": {"text": "牛乳"}},  # the field is called message
        {"json": {"message": "あ" * 8001}},
        {"json": {"message": "牛乳", "model": "opus"}},
        {"content": '{"message": "牛乳', "headers": {"content-type": "application/json"}},  # broken JSON
        {"content": "牛乳", "headers": {"content-type": "text/plain"}},
        {},  # no body at all
    ]
    client, csrf = signed_in(site, "wife", "futari")
    token = client.cookies[SESSION_COOKIE]
    stranger = TestClient(site.app)
    stale = TestClient(site.app, cookies={SESSION_COOKIE: "x" * len(token)})  # a cookie of no session
    for bad in bad_bodies:
        for outside in (stranger, stale):
            response = outside.post("/api/chat", **bad)
            assert response.status_code == 401, (bad, response.text)
            assert response.json() == {"error": "sign in first"}
        forged = client.post("/api/chat", **bad)  # her session, but no CSRF token
        assert forged.status_code == 403, (bad, forged.text)
    said = {
        "missing": client.post("/api/chat", json={"text": "牛乳"}, headers=csrf_headers(csrf)),
        "long": client.post("/api/chat", json={"message": "あ" * 8001}, headers=csrf_headers(csrf)),
        "plain": client.post(
            "/api/chat", content="牛乳", headers={**csrf_headers(csrf), "content-type": "text/plain"}
        ),
        "empty": client.post("/api/chat", headers=csrf_headers(csrf)),
    }
    assert {name: r.status_code for name, r in said.items()} == dict.fromkeys(said, 422)
    assert said["missing"].json()["error"].startswith("invalid request: message: Field required")
    assert (
        said["long"].json()["error"] == "invalid request: message: String should have at most 8000 characters"
    )
    assert "Content-Type: application/json" in said["plain"].json()["error"]
    assert said["empty"].json()["error"] == "invalid request: Field required"
    assert said["missing"].json()["detail"][0]["loc"] == ["body", "message"]  # where FastAPI puts it
    documented = client.get("/api/openapi.json").json()["paths"]["/api/chat"]["post"]["requestBody"]
    schema = documented["content"]["application/json"]["schema"]  # the body is still in the schema
    assert (
        documented["required"]
        and schema["required"] == ["message"]
        and schema["additionalProperties"] is False
    )
    assert api.requests == []  # the model never heard any of it


def test_a_body_sent_in_chunks_past_the_limit_is_refused_before_anything_is_done(
    site: Site, api: FakeMessagesAPI
) -> None:
    """Without Content-Length the body is counted as it arrives: a valid start must not be acted on."""
    card = propose(site, "futari", "wife")

    def slowly(first: bytes) -> Iterator[bytes]:
        yield first
        time.sleep(0.2)  # the rest arrives later, in its own read
        yield b" " * 10_000

    with serving(site.app) as base, httpx.Client(base_url=base, timeout=10) as client:
        body = {"user": "wife", "password": PASSWORD, "household": "futari"}
        csrf = client.post("/api/session", json=body).json()["csrf"]
        said = json.dumps({"message": "牛乳を買って"}).encode() + b" " * 60_000
        response = client.post(
            "/api/chat",
            content=slowly(said),
            headers={**csrf_headers(csrf), "content-type": "application/json"},
        )
        assert response.status_code == 413 and "larger than 65,536 bytes" in response.json()["error"]
        # a form carrying the CSRF token up front (as the pages send it), then too much
        form = f"csrf={csrf}&note=".encode() + b"x" * 60_000
        response = client.post(
            f"/api/proposals/{card}/approve",
            content=slowly(form),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert response.status_code == 413
        conversation = client.get("/api/conversation").json()["id"]
    assert api.requests == [] and messages_of(site, conversation) == []
    assert state_of(site, card) == "pending"
    assert site.backend.store.shopping_items("futari") == []


def test_a_dead_model_api_ends_the_stream_with_an_error_and_the_message_is_kept(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    api.fail(529, "overloaded_error", "Overloaded", times=2)  # the router's call too
    seen = chat(client, csrf, "明日の天気は？")
    names = [name for name, _ in seen]
    assert names[0] == "conversation" and names[-1] == "error" and "done" not in names
    error = seen[-1][1]
    assert error["kind"] == "ModelUnavailableError"
    assert "busy or failing (HTTP 529" in error["error"] and "try again later" in error["error"]
    kept = client.get("/api/conversation").json()
    assert kept["id"] == seen[0][1]["id"]
    assert [(i["role"], i["text"]) for i in kept["items"]] == [("user", "明日の天気は？")]

    api.fail(500, "api_error", "Internal server error", times=2)
    seen = chat(client, csrf, "もう一度")
    assert seen[-1][0] == "error" and seen[-1][1]["error"]
    # the model is back: the next turn hears both earlier messages
    say(api, "晴れです。")
    seen = chat(client, csrf, "どう？")
    assert seen[-1] == ("done", {"conversation": kept["id"], "text": "晴れです。"})
    heard = json.dumps(api.requests[-1]["messages"], ensure_ascii=False)
    assert "明日の天気は？" in heard and "もう一度" in heard and "どう？" in heard


def test_an_unexpected_failure_is_reported_on_the_stream_and_the_message_is_kept(tmp_path: Path) -> None:
    site = make_site(tmp_path / "web.db", ScriptedModel([text_response("task"), RuntimeError("boom")]))
    try:
        client, csrf = signed_in(site, "wife", "futari")
        seen = chat(client, csrf, "牛乳を買って")
        assert seen[-1] == (
            "error",
            {
                "error": "the butler failed unexpectedly (RuntimeError); your message is kept: try again",
                "kind": "InternalError",
            },
        )
        items = client.get("/api/conversation").json()["items"]
        assert [(i["role"], i["text"]) for i in items] == [("user", "牛乳を買って")]
    finally:
        site.close()


def test_the_open_panel_tool_asks_the_page_to_open_it(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    api.reply(text_response("task"))
    api.reply(tool_use_response(("toolu_1", "open_panel", {"name": "shopping"})))
    api.reply(text_response("買い物リストを開きました。"))
    seen = chat(client, csrf, "買い物リストを見せて")
    panels = [data for name, data in seen if name == "panel"]
    assert panels == [{"open_panel": "shopping", "label": "household.shopping"}]
    assert ("tools", {"names": ["open_panel"]}) in seen
    assert seen[-1][0] == "done" and seen[-1][1]["text"] == "買い物リストを開きました。"
    assert [c for n, c in seen if n == "proposal"] == []  # a UI panel needs no confirmation card


def test_conversations_are_the_members_own(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    spouse, spouse_csrf = signed_in(site, "husband", "futari")
    neighbour, _ = household_member(site, "neighbour")
    say(api, "こんにちは。")
    first = chat(client, csrf, "こんにちは")[0][1]["id"]
    assert client.get("/api/conversation").json()["id"] == first  # the latest by default
    assert client.put("/api/panel", json={"name": "todos"}, headers=csrf_headers(csrf)).status_code == 200

    started = client.post("/api/conversations", headers=csrf_headers(csrf))
    assert started.status_code == 200
    second = started.json()["id"]
    assert second != first and started.json() == {"id": second, "panel": None, "items": []}
    assert site.backend.butler.segments.current(first) is None  # the old conversation's panel segment closed
    assert client.get("/api/conversation").json() == {"id": second, "panel": None, "items": []}
    older = client.get("/api/conversation", params={"id": first}).json()
    assert older["id"] == first and [i["text"] for i in older["items"]] == ["こんにちは", "こんにちは。"]

    for other in (spouse, neighbour):
        response = other.get("/api/conversation", params={"id": first})
        assert response.status_code == 404 and first in response.json()["error"]
        assert other.get("/api/conversation").json()["id"] != first
    refused = spouse.post(
        "/api/chat", json={"message": "覗き見", "conversation": first}, headers=csrf_headers(spouse_csrf)
    )
    assert refused.status_code == 404
    assert [text for _, text in messages_of(site, first)] == ["こんにちは", "こんにちは。"]
    too_long = client.get("/api/conversation", params={"id": "c" * 65})
    assert too_long.status_code == 422 and "id" in too_long.json()["error"]


def test_a_second_message_while_the_first_is_answered_gets_409(site: Site, api: FakeMessagesAPI) -> None:
    say(api, "一つ目の答え。", delay_s=1.0)
    with serving(site.app) as base, httpx.Client(base_url=base, timeout=10) as client:
        body = {"user": "wife", "password": PASSWORD, "household": "futari"}
        csrf = client.post("/api/session", json=body).json()["csrf"]
        headers = csrf_headers(csrf)
        with client.stream("POST", "/api/chat", json={"message": "一つ目"}, headers=headers) as first:
            lines = first.iter_lines()
            assert next(lines) == "event: conversation"
            conversation = json.loads(next(lines).removeprefix("data: "))["id"]
            second = client.post(
                "/api/chat", json={"message": "二つ目", "conversation": conversation}, headers=headers
            )
            assert second.status_code == 409 and "still answering" in second.json()["error"]
            rest = "\n".join(lines)
        assert "event: done" in rest and "一つ目の答え。" in rest
        texts = [text for _, text in messages_of(site, conversation)]
        assert texts == ["一つ目", "一つ目の答え。"]  # the refused message was not taken
    assert len(api.requests) == 2


def test_two_messages_sent_at_once_to_one_conversation_run_one_at_a_time(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    conversation = client.get("/api/conversation").json()["id"]
    cookies = {SESSION_COOKIE: client.cookies[SESSION_COOKIE]}
    say(api, "はい。")
    say(api, "はい。")

    async def both() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=site.app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", cookies=cookies
        ) as ac:
            return list(
                await asyncio.gather(
                    *(
                        ac.post(
                            "/api/chat",
                            json={"message": text, "conversation": conversation},
                            headers=csrf_headers(csrf),
                        )
                        for text in ("一つ目", "二つ目")
                    )
                )
            )

    statuses = sorted(r.status_code for r in asyncio.run(both()))
    assert statuses == [200, 409]
    assert len(messages_of(site, conversation)) == 2


# -- panels -------------------------------------------------------------------


def test_panels_show_the_households_lists(site: Site) -> None:
    client, _ = signed_in(site, "wife", "futari")
    store = site.backend.store
    store.add_shopping_item("futari", "卵", 2, by="husband")
    store.add_shopping_item("tonari", "隣の醤油", by="neighbour")
    store.add_todo("futari", "ゴミ出し", by="wife")
    store.add_event("futari", "歯医者", "2999-01-02T10:00", by="wife")
    store.add_expense("futari", 1200, "食費", day="2026-03-05", by="wife")
    store.add_expense("futari", 800, "日用品", day="2026-03-06", by="husband")

    shopping = client.get("/api/panels/shopping").json()
    assert shopping["panel"] == "shopping"
    assert [(i["name"], i["quantity"]) for i in shopping["items"]] == [("卵", 2)]
    assert [t["title"] for t in client.get("/api/panels/todos").json()["todos"]] == ["ゴミ出し"]
    assert [e["title"] for e in client.get("/api/panels/calendar").json()["events"]] == ["歯医者"]
    budget = client.get("/api/panels/budget", params={"month": "2026-03"}).json()
    assert budget["month"] == "2026-03" and budget["total_yen"] == 2000
    assert budget["by_category"] == {"食費": 1200, "日用品": 800}
    assert client.get("/api/panels/budget", params={"month": "2026-04"}).json()["expenses"] == []

    unknown = client.get("/api/panels/garage")
    assert unknown.status_code == 422 and "name" in unknown.json()["error"]
    for month in ("2026-3", "March", "2026-03-01"):
        response = client.get("/api/panels/budget", params={"month": month})
        assert response.status_code == 422, month
    for month in ("2026-13", "0000-01", "9999-12"):
        response = client.get("/api/panels/budget", params={"month": month})
        assert response.status_code == 400 and "month" in response.json()["error"], month


def test_opening_a_panel_starts_a_labelled_segment_and_closing_ends_it(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    conversation = client.get("/api/conversation").json()["id"]
    segments = site.backend.butler.segments

    def put(body: dict[str, Any]) -> Any:
        return client.put("/api/panel", json=body, headers=csrf_headers(csrf))

    opened = put({"name": "shopping", "conversation": conversation})
    assert opened.status_code == 200 and opened.json() == {"panel": "shopping", "label": "household.shopping"}
    current = segments.current(conversation)
    assert current is not None and current.label == "household.shopping" and current.owner == "wife"
    assert client.get("/api/conversation").json()["panel"] == "shopping"
    assert put({"name": "shopping"}).json()["panel"] == "shopping"  # again: the same segment stays open
    same = segments.current(conversation)
    assert same is not None and same.id == current.id

    switched = put({"name": "budget"})
    assert switched.json() == {"panel": "budget", "label": "household.budget"}
    now = segments.current(conversation)
    assert now is not None and now.label == "household.budget" and now.id != current.id

    closed = put({"name": None})
    assert closed.status_code == 200 and closed.json() == {"panel": None, "label": None}
    assert segments.current(conversation) is None
    assert client.get("/api/conversation").json()["panel"] is None
    labels = [s.label for s in segments.index("futari", "wife")]
    assert sorted(labels) == ["household.budget", "household.shopping"]

    for bad in ({"name": "garage"}, {"name": "shopping", "colour": "red"}, {"name": 3}):
        response = put(bad)
        assert response.status_code == 422, bad
    neighbour, _ = household_member(site, "neighbour")
    theirs = neighbour.get("/api/conversation").json()["id"]
    assert put({"name": "todos", "conversation": theirs}).status_code == 404
    assert segments.current(theirs) is None and segments.current(conversation) is None


def _next_event(lines: Iterator[str]) -> tuple[str, dict[str, Any] | None]:
    """The next server-sent event: (name, data), or ("keep-alive", None) for a comment."""
    name, data = "", None
    for line in lines:
        if line.startswith(":"):
            return "keep-alive", None
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = json.loads(line.removeprefix("data: "))
        elif line == "" and name:
            return name, data
    raise AssertionError("the stream ended")


def test_the_event_stream_tells_of_household_changes_from_anywhere(site: Site) -> None:
    card = propose(site, "futari", "husband", "卵")
    with (
        serving(site.app) as base,
        httpx.Client(base_url=base, timeout=10) as watcher,
        httpx.Client(base_url=base, timeout=10) as spouse,
    ):
        for client, user in ((watcher, "wife"), (spouse, "husband")):
            body = {"user": user, "password": PASSWORD, "household": "futari"}
            assert client.post("/api/session", json=body).status_code == 200
        spouse_csrf = spouse.get("/api/me").json()["csrf"]
        with watcher.stream("GET", "/api/events") as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            name, hello = _next_event(lines)
            assert name == "hello" and hello == {"fingerprint": site.backend.fingerprint("futari")}

            # another household's change is not news here
            other = HouseholdStore(database(site.db))
            try:
                other.add_shopping_item("tonari", "醤油", by="neighbour")
                assert _next_event(lines) == ("keep-alive", None)
                # a write from another process (its own connection), seen within one poll
                other.add_shopping_item("futari", "牛乳", by="husband")
            finally:
                other.close()
            name, data = _next_event(lines)
            while name == "keep-alive":
                name, data = _next_event(lines)
            assert name == "household" and data == {"fingerprint": site.backend.fingerprint("futari")}
            assert data != hello

            # an approval through another connection wakes the stream at once
            started = time.monotonic()
            approved = spouse.post(f"/api/proposals/{card}/approve", headers=csrf_headers(spouse_csrf))
            assert approved.status_code == 200
            name, data = _next_event(lines)
            assert name == "household" and data == {"fingerprint": site.backend.fingerprint("futari")}
            assert time.monotonic() - started < 1.5
        names = [i["name"] for i in watcher.get("/api/panels/shopping").json()["items"]]
        assert names == ["牛乳", "卵"]


def test_the_event_stream_needs_a_session(site: Site) -> None:
    assert TestClient(site.app).get("/api/events").status_code == 401


# -- proposals ----------------------------------------------------------------


def test_proposals_are_listed_by_state_and_decided_once(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    milk, eggs, rice = (propose(site, "futari", "wife", name) for name in ("牛乳", "卵", "米"))
    propose(site, "futari", "husband", "ビール")  # the spouse's card is not hers
    listed = client.get("/api/proposals").json()
    assert [p["id"] for p in listed] == [rice, eggs, milk]  # newest first
    assert {p["state"] for p in listed} == {"pending"}
    one = client.get(f"/api/proposals/{eggs}").json()
    assert one["id"] == eggs and one["tool"] == "add_shopping_item" and one["input"]["name"] == "卵"

    approved = client.post(f"/api/proposals/{milk}/approve", headers=csrf_headers(csrf))
    assert approved.status_code == 200 and approved.json()["done"] is True
    assert approved.json()["proposal"]["state"] == "approved"
    rejected = client.post(f"/api/proposals/{eggs}/reject", headers=csrf_headers(csrf))
    assert rejected.status_code == 200 and rejected.json()["proposal"]["state"] == "rejected"
    for path in (
        f"/api/proposals/{eggs}/approve",
        f"/api/proposals/{eggs}/reject",
        f"/api/proposals/{milk}/reject",
    ):
        late = client.post(path, headers=csrf_headers(csrf))
        assert late.status_code == 409 and late.json()["done"] is False and late.json()["reason"], path
    assert state_of(site, milk) == "approved" and state_of(site, eggs) == "rejected"
    assert [i["name"] for i in client.get("/api/panels/shopping").json()["items"]] == ["牛乳"]

    def ids(state: str) -> list[str]:
        response = client.get("/api/proposals", params={"state": state})
        assert response.status_code == 200
        return [p["id"] for p in response.json()]

    assert ids("pending") == [rice] and ids("decided") == [eggs, milk] and ids("expired") == []
    assert ids("all") == [rice, eggs, milk]
    assert client.get("/api/proposals", params={"state": "maybe"}).status_code == 422


def test_an_expired_card_cannot_be_approved(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    proposals = site.backend.butler.proposals
    real_clock = proposals.clock
    proposals.clock = lambda: real_clock() - timedelta(days=30)  # made long ago
    try:
        old = propose(site, "futari", "wife", "古いパン")
    finally:
        proposals.clock = real_clock
    assert client.get(f"/api/proposals/{old}").json()["state"] == "expired"
    assert [p["id"] for p in client.get("/api/proposals", params={"state": "expired"}).json()] == [old]
    assert client.get("/api/proposals", params={"state": "pending"}).json() == []
    refused = client.post(f"/api/proposals/{old}/approve", headers=csrf_headers(csrf))
    assert refused.status_code == 409 and refused.json()["done"] is False
    assert client.get("/api/panels/shopping").json()["items"] == []


def test_other_members_and_households_cards_answer_404_and_stay_pending(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    theirs = propose(site, "tonari", "neighbour", "隣の米")
    spouses = propose(site, "futari", "husband", "ビール")
    for card in (theirs, spouses, "p_000000000000"):
        assert client.get(f"/api/proposals/{card}").status_code == 404
        for verb in ("approve", "reject"):
            response = client.post(f"/api/proposals/{card}/{verb}", headers=csrf_headers(csrf))
            assert response.status_code == 404 and card in response.json()["error"], (card, verb)
    assert state_of(site, theirs) == "pending" and state_of(site, spouses) == "pending"
    assert client.get("/api/proposals").json() == []
    assert client.get("/api/panels/shopping").json()["items"] == []
    assert client.get("/api/proposals/" + "p" * 65).status_code == 422


# -- memories -----------------------------------------------------------------


def test_members_see_their_own_and_the_shared_memories_only(site: Site) -> None:
    client, _ = signed_in(site, "wife", "futari")
    mine = remember(site, "妻は紅茶が好き", OWN, category="preference")
    ours = remember(site, "結婚記念日は6月1日", SHARED, category="event")
    remember(site, "夫は妻へのサプライズを計画中", SPOUSE, category="event")
    remember(site, "隣の家の猫はタマ", NEXT_DOOR)

    listed = {m["id"]: m for m in client.get("/api/memories").json()}
    assert set(listed) == {mine, ours}
    assert listed[mine]["shared"] is False and listed[mine]["scope"] == OWN
    assert listed[ours]["shared"] is True and listed[ours]["scope"] == SHARED
    assert listed[mine]["content"] == "妻は紅茶が好き" and listed[mine]["deleted"] is False

    def ids(**params: Any) -> set[str]:
        response = client.get("/api/memories", params=params)
        assert response.status_code == 200, response.text
        return {m["id"] for m in response.json()}

    assert ids(scope="own") == {mine} and ids(scope="shared") == {ours} and ids(scope="all") == {mine, ours}
    assert ids(category="event") == {ours} and ids(category="nothing") == set()
    assert ids(q="紅茶") <= {mine, ours} and ids(q="サプライズ 猫 タマ") <= {mine, ours}  # never theirs
    assert ids(limit=1) <= {mine, ours} and len(ids(limit=1)) == 1
    hits = client.get("/api/memories", params={"q": "紅茶"}).json()
    assert hits[0]["id"] == mine and isinstance(hits[0]["score"], float)  # the best match first
    for bad in ({"limit": 0}, {"limit": 501}, {"scope": "spouse"}, {"q": "x" * 501}):
        assert client.get("/api/memories", params=bad).status_code == 422, bad

    shared = client.get(f"/api/memories/{ours}").json()
    assert shared["id"] == ours and shared["shared"] is True and shared["messages"] == []


def test_spouses_private_and_neighbours_memories_cannot_be_read_or_changed(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    secret = remember(site, "夫は妻へのサプライズを計画中", SPOUSE)
    next_door = remember(site, "隣の家の猫はタマ", NEXT_DOOR)
    gone = remember(site, "夫の古いメモ", SPOUSE)
    site.backend.memory.forget(gone)
    for memory in (secret, next_door, gone, secret[:8]):
        assert client.get(f"/api/memories/{memory}").status_code == 404
        edit = client.patch(
            f"/api/memories/{memory}", json={"content": "書き換え"}, headers=csrf_headers(csrf)
        )
        assert edit.status_code == 404 and memory in edit.json()["error"]
        for verb in ("forget", "restore"):
            response = client.post(f"/api/memories/{memory}/{verb}", headers=csrf_headers(csrf))
            assert response.status_code == 404, (memory, verb)
    assert site.backend.memory.get(secret).content == "夫は妻へのサプライズを計画中"
    assert site.backend.memory.get(secret).deleted_at is None
    assert site.backend.memory.get(next_door).deleted_at is None
    assert site.backend.memory.get(gone).deleted_at is not None
    assert client.get("/api/memories", params={"deleted": True}).json() == []
    husband, _ = signed_in(site, "husband", "futari")
    assert {m["id"] for m in husband.get("/api/memories").json()} == {secret}


def test_editing_a_memory_replaces_it_with_a_new_version(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    old = remember(site, "妻は紅茶が好き", OWN, category="preference", importance=0.4)
    response = client.patch(
        f"/api/memories/{old}",
        json={"content": "妻はほうじ茶が好き", "importance": 0.8},
        headers=csrf_headers(csrf),
    )
    assert response.status_code == 200
    new = response.json()
    assert new["id"] != old and new["content"] == "妻はほうじ茶が好き"
    assert new["category"] == "preference" and new["importance"] == 0.8 and new["scope"] == OWN
    assert new["deleted"] is False
    shown = client.get(f"/api/memories/{new['id']}").json()
    assert shown["provenance"]["edited_from"] == old and shown["provenance"]["edited_by"] == "wife"
    before = client.get(f"/api/memories/{old}").json()
    assert before["deleted"] is True and before["content"] == "妻は紅茶が好き"  # forgotten, restorable
    assert [m["id"] for m in client.get("/api/memories").json()] == [new["id"]]
    assert [m["id"] for m in client.get("/api/memories", params={"deleted": True}).json()] == [old]

    # a shared memory is the household's: either member may correct it
    ours = remember(site, "ゴミの日は火曜", SHARED)
    fixed = client.patch(
        f"/api/memories/{ours}", json={"content": "ゴミの日は水曜"}, headers=csrf_headers(csrf)
    )
    assert fixed.status_code == 200 and fixed.json()["shared"] is True and fixed.json()["scope"] == SHARED


def test_bad_memory_edits_are_refused_and_change_nothing(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    memory = remember(site, "妻は紅茶が好き", OWN, importance=0.4)

    def patch(body: object) -> Any:
        return client.patch(f"/api/memories/{memory}", json=body, headers=csrf_headers(csrf))

    for body in (
        {"importance": 1.5},
        {"importance": -0.1},
        {"content": ""},
        {"content": "x" * 4001},
        {"category": ""},
        {"scope": SPOUSE},
        {"content": "妻は緑茶が好き", "owner": "husband"},
        ["妻は緑茶が好き"],
    ):
        response = patch(body)
        assert response.status_code == 422 and response.json()["error"].startswith("invalid request"), body
    blank = patch({"content": "   "})
    assert blank.status_code == 400 and blank.json()["error"]
    assert (
        client.patch(
            f"/api/memories/{memory}",
            content=b"{",
            headers={**csrf_headers(csrf), "content-type": "application/json"},
        ).status_code
        == 422
    )
    assert client.get("/api/memories/" + "m" * 65).status_code == 422
    assert [(m["id"], m["content"], m["importance"]) for m in client.get("/api/memories").json()] == [
        (memory, "妻は紅茶が好き", 0.4)
    ]
    # nothing to change: the same memory comes back
    same = patch({"content": "妻は紅茶が好き"})
    assert same.status_code == 200 and same.json()["id"] == memory
    # a forgotten memory is restored before it is edited
    assert client.post(f"/api/memories/{memory}/forget", headers=csrf_headers(csrf)).status_code == 200
    refused = patch({"content": "妻は緑茶が好き"})
    assert refused.status_code == 400 and "restore it" in refused.json()["error"]
    assert client.get("/api/memories", params={"deleted": True}).json()[0]["content"] == "妻は紅茶が好き"


def test_forgetting_and_restoring_a_memory(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    memory = remember(site, "妻は紅茶が好き", OWN)
    forgot = client.post(f"/api/memories/{memory}/forget", headers=csrf_headers(csrf))
    assert forgot.status_code == 200 and forgot.json()["deleted"] is True
    assert client.get("/api/memories").json() == []
    assert client.get("/api/memories", params={"q": "紅茶"}).json() == []  # recall no longer finds it
    assert [m["id"] for m in client.get("/api/memories", params={"deleted": True}).json()] == [memory]
    assert client.post(f"/api/memories/{memory}/forget", headers=csrf_headers(csrf)).status_code == 200
    restored = client.post(f"/api/memories/{memory}/restore", headers=csrf_headers(csrf))
    assert restored.status_code == 200 and restored.json()["deleted"] is False
    assert [m["id"] for m in client.get("/api/memories", params={"q": "紅茶"}).json()] == [memory]


def test_a_memory_says_where_it_came_from_quoting_the_members_own_messages(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    spouse, spouse_csrf = signed_in(site, "husband", "futari")
    say(api, "覚えておきます。")
    cid = chat(client, csrf, "私は紅茶が好きなの")[0][1]["id"]
    say(api, "承知しました。")
    his = chat(spouse, spouse_csrf, "結婚記念日は6月1日だよ")[0][1]["id"]
    mine = remember(
        site,
        "妻は紅茶が好き",
        OWN,
        source="extracted",
        provenance={"conversation": cid, "message_ids": [f"{cid}:0", f"{cid}:1", f"{cid}:99", "junk"]},
    )
    ours = remember(
        site,
        "結婚記念日は6月1日",
        SHARED,
        source="extracted",
        provenance={"conversation": his, "message_ids": [f"{his}:0"]},
    )
    shown = client.get(f"/api/memories/{mine}").json()
    assert shown["source"] == "extracted" and shown["provenance"]["conversation"] == cid
    quoted = [(m["id"], m["role"], m["text"]) for m in shown["messages"]]
    assert quoted == [
        (f"{cid}:0", "user", "私は紅茶が好きなの"),
        (f"{cid}:1", "assistant", "覚えておきます。"),
    ]
    assert all(m["at"] for m in shown["messages"])
    # the shared memory is hers to see, but his conversation is not quoted to her
    theirs = client.get(f"/api/memories/{ours}").json()
    assert theirs["shared"] is True and theirs["provenance"]["conversation"] == his
    assert theirs["messages"] == []
    assert [m["text"] for m in spouse.get(f"/api/memories/{ours}").json()["messages"]] == [
        "結婚記念日は6月1日だよ"
    ]


def test_the_openapi_schema_documents_every_endpoint_for_members_only(site: Site) -> None:
    client, _ = signed_in(site, "wife", "futari")
    schema = client.get("/api/openapi.json").json()
    assert schema["info"]["title"] == "shitsuji"
    operations = {(method.upper(), path) for path, item in schema["paths"].items() for method in item}
    assert operations == {
        ("GET", "/api/health"),
        ("POST", "/api/session"),
        ("DELETE", "/api/session"),
        ("GET", "/api/me"),
        ("GET", "/api/conversation"),
        ("GET", "/api/conversations"),
        ("POST", "/api/conversations"),
        ("POST", "/api/chat"),
        ("POST", "/api/chat/picture"),
        ("GET", "/api/panels/{name}"),
        ("PUT", "/api/panel"),
        ("POST", "/api/panel-actions"),
        ("POST", "/api/nisa/cards"),
        ("POST", "/api/invitations"),
        ("POST", "/api/join"),
        ("PUT", "/api/password"),
        ("PUT", "/api/time-zone"),
        ("GET", "/api/events"),
        ("GET", "/api/proposals"),
        ("GET", "/api/proposals/{proposal_id}"),
        ("POST", "/api/proposals/{proposal_id}/approve"),
        ("POST", "/api/proposals/{proposal_id}/reject"),
        ("GET", "/api/memories"),
        ("GET", "/api/memories/{memory_id}"),
        ("PATCH", "/api/memories/{memory_id}"),
        ("POST", "/api/memories/{memory_id}/forget"),
        ("POST", "/api/memories/{memory_id}/restore"),
        ("GET", "/api/audit"),
        ("GET", "/api/line"),
        ("POST", "/api/line/code"),
        ("DELETE", "/api/line"),
        ("POST", "/api/password/reset"),
        ("GET", "/api/notifications"),
        ("POST", "/api/notifications/read"),
        ("GET", "/api/reminders"),
        ("PUT", "/api/reminders"),
    }
    assert "/line/webhook" not in schema["paths"]  # LINE's, not the members' API
    assert "text/event-stream" in schema["paths"]["/api/chat"]["post"]["responses"]["200"]["content"]
    assert TestClient(site.app).get("/api/openapi.json").status_code == 401
    assert TestClient(site.app).get("/openapi.json").status_code == 404
    assert TestClient(site.app).get("/docs").status_code == 404


def test_the_message_is_stored_before_the_model_is_asked(tmp_path: Path) -> None:
    seen_while_answering: list[list[str]] = []
    holder: dict[str, Site] = {}

    def model(request: Any) -> Any:
        backend = holder["site"].backend
        [conversation] = backend.butler.conversations._conn.execute("SELECT id FROM conversations").fetchall()
        rows = backend.butler.conversations.rows(conversation[0])
        seen_while_answering.append([message_text(json.loads(str(r["content"]))) for r in rows])
        return text_response("chat" if len(seen_while_answering) == 1 else "はい。")

    site = holder["site"] = make_site(tmp_path / "web.db", ScriptedModel(model))
    try:
        client, csrf = signed_in(site, "wife", "futari")
        response = client.post("/api/chat", json={"message": "覚えておいて"}, headers={"X-CSRF-Token": csrf})
        assert response.status_code == 200 and "event: done" in response.text
    finally:
        site.close()
    assert seen_while_answering[0] == ["覚えておいて"]  # already stored when the router was asked
    assert seen_while_answering[-1] == ["覚えておいて"]


def test_earlier_conversations_are_listed_newest_first_and_only_the_members(
    site: Site, api: FakeMessagesAPI
) -> None:
    wife, csrf = signed_in(site, "wife", "futari")
    for text in ("一つ目の会話です", "二つ目の会話です"):
        api.reply(text_response("chat"))
        api.reply(text_response("はい。"))
        assert (
            wife.post("/api/chat", json={"message": text}, headers={"X-CSRF-Token": csrf}).status_code == 200
        )
        wife.post("/api/conversations", headers={"X-CSRF-Token": csrf})  # start a fresh one
    listed = wife.get("/api/conversations").json()
    assert [c["title"] for c in listed] == [
        "二つ目の会話です",
        "一つ目の会話です",
    ]  # the empty new one is left out
    assert all(c["messages"] == 2 for c in listed)
    assert wife.get("/api/conversations", params={"limit": 1}).json() == listed[:1]
    assert wife.get("/api/conversations", params={"limit": 0}).status_code == 422
    husband, _ = signed_in(site, "husband", "futari")
    assert husband.get("/api/conversations").json() == []
    page = wife.get("/")
    assert "これまでの会話" in page.text and f"/?c={listed[1]['id']}" in page.text
    earlier = wife.get(f"/?c={listed[1]['id']}")
    assert (
        "一つ目の会話です" in earlier.text and "二つ目の会話です" in earlier.text
    )  # the other is in the list
