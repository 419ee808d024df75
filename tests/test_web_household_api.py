"""Everyday use through the JSON API: panel actions, the household's time zone, invitations,
password changes, cards in the page's language and resent messages stored once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from fastapi.testclient import TestClient

from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import probe_local, text_response, tool_use_response
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._embedders import Vector
from shitsuji.store import database
from shitsuji.web import Backend, create_app

from .fake_anthropic import FakeMessagesAPI
from .test_web_api import chat, csrf_headers, events, signed_in
from .web_support import HOME, NEIGHBOUR, PASSWORD, Site, free_port, make_site, serving

ACT = "/api/panel-actions"


def act(client: TestClient, csrf: str, **body: Any) -> httpx.Response:
    return client.post(ACT, json=body, headers=csrf_headers(csrf))


# -- panel actions ------------------------------------------------------------------


def test_a_member_ticks_undoes_completes_reopens_deletes_and_adds_without_a_card(site: Site) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    store = site.backend.store
    added = act(client, csrf, action="add_shopping_item", name="牛乳", quantity=2)
    assert added.status_code == 200, added.text
    item = added.json()["row"]
    assert (item["name"], item["quantity"], item["added_by"]) == ("牛乳", 2, "wife")
    assert store.counts(HOME, store.today(HOME)).shopping_items == 1  # the butler's count index sees it

    ticked = act(client, csrf, action="check_shopping_item", id=item["id"])
    assert ticked.json()["changed"] is True and ticked.json()["row"]["checked_by"] == "wife"
    assert act(client, csrf, action="check_shopping_item", id=item["id"]).json()["changed"] is False
    assert store.counts(HOME, store.today(HOME)).shopping_items == 0  # bought: no longer to buy
    undone = act(client, csrf, action="check_shopping_item", id=item["id"], checked=False)
    assert undone.json()["changed"] is True and "checked_at" not in undone.json()["row"]

    todo = act(client, csrf, action="add_todo", title="ゴミ出し", due="2026-12-03").json()["row"]
    assert act(client, csrf, action="complete_todo", id=todo["id"]).json()["row"]["done_by"] == "wife"
    assert store.todos(HOME) == []
    assert act(client, csrf, action="complete_todo", id=todo["id"], done=False).json()["changed"] is True
    assert [t.title for t in store.todos(HOME)] == ["ゴミ出し"]

    event = act(client, csrf, action="add_event", title="歯医者", start="2026-12-03T10:00").json()["row"]
    expense = act(client, csrf, action="add_expense", amount=1200, category="食費").json()["row"]
    assert expense["date"] == store.today(HOME).isoformat()
    for kind, row in (("shopping_item", item), ("todo", todo), ("event", event), ("expense", expense)):
        gone = act(client, csrf, action=f"remove_{kind}", id=row["id"])
        assert gone.status_code == 200 and gone.json()["row"]["id"] == row["id"]
    dump = store.dump(HOME)
    assert all(dump[k] == [] for k in ("shopping_items", "todos", "events", "expenses"))
    assert site.backend.butler.proposals.list(household=HOME) == []  # no card was ever made
    # … and each change is in the household's audit log, once, as the member's own
    logged = [
        (e.action, e.actor, e.channel) for e in reversed(site.backend.butler.audit.events(household=HOME))
    ]
    panel = [entry for entry in logged if entry[0].startswith("panel.")]
    assert panel[:3] == [
        ("panel.add_shopping_item", "wife", "app"),
        ("panel.check_shopping_item", "wife", "app"),
        ("panel.check_shopping_item", "wife", "app"),  # the undo; the repeated tick changed nothing
    ]
    assert len(panel) == 12


def test_panel_actions_need_the_session_and_its_csrf_token(site: Site) -> None:
    anonymous = TestClient(site.app)
    assert anonymous.post(ACT, json={"action": "add_shopping_item", "name": "卵"}).status_code == 401
    client, _ = signed_in(site, "wife", HOME)
    assert client.post(ACT, json={"action": "add_shopping_item", "name": "卵"}).status_code == 403
    wrong = client.post(
        ACT, json={"action": "add_shopping_item", "name": "卵"}, headers=csrf_headers("x" * 32)
    )
    assert wrong.status_code == 403
    form = client.post("/panel-actions", data={"action": "add_shopping_item", "name": "卵"})
    assert form.status_code == 403  # the form without its token
    assert site.backend.store.shopping_items(HOME) == []


def test_panel_actions_work_as_plain_forms_without_javascript(site: Site) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    added = client.post(
        "/panel-actions",
        data={"csrf": csrf, "action": "add_shopping_item", "name": "豆腐", "quantity": "3", "back": "/?c=x"},
        follow_redirects=False,
    )
    assert added.status_code == 303 and added.headers["location"] == "/?c=x"
    [item] = site.backend.store.shopping_items(HOME)
    assert (item.name, item.quantity) == ("豆腐", 3)
    ticked = client.post(
        "/panel-actions",
        data={
            "csrf": csrf,
            "action": "check_shopping_item",
            "id": item.id,
            "checked": "true",
            "back": "//evil.example",
        },
        follow_redirects=False,
    )
    assert ticked.status_code == 303 and ticked.headers["location"] == "/"  # never an open redirect
    assert site.backend.store.shopping_items(HOME)[0].checked
    bad = client.post(
        "/panel-actions", data={"csrf": csrf, "action": "add_shopping_item"}, headers={"Accept": "text/html"}
    )
    assert bad.status_code == 400 and "invalid panel action" in bad.text


def test_a_member_adds_a_private_event_and_to_do_from_the_panels_and_the_spouse_never_sees_them(
    site: Site,
) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    husband, _ = signed_in(site, "husband", HOME)
    event = act(wife, csrf, action="add_event", title="歯医者", start="2026-12-20T10:00", private=True)
    assert event.status_code == 200, event.text
    shared = act(wife, csrf, action="add_event", title="忘年会", start="2026-12-21T19:00")
    assert shared.status_code == 200, shared.text
    form = wife.post(  # the checkbox of the page's form, without JavaScript
        "/panel-actions",
        data={
            "csrf": csrf,
            "action": "add_todo",
            "title": "誕生日プレゼント",
            "private": "true",
            "back": "/",
        },
        follow_redirects=False,
    )
    assert form.status_code == 303
    for panel, secret, common in (("calendar", "歯医者", "忘年会"), ("todos", "誕生日プレゼント", None)):
        hers, his = wife.get(f"/panels/{panel}").text, husband.get(f"/panels/{panel}").text
        assert secret in hers and "🔒" in hers
        assert secret not in his
        if common is not None:
            assert common in hers and common in his
    assert [t.title for t in site.backend.store.todos(HOME, viewer="husband")] == []


def test_another_households_ids_answer_not_found_and_stay_untouched(site: Site) -> None:
    theirs = site.backend.store.add_shopping_item(NEIGHBOUR, "醤油", by="neighbour")
    their_todo = site.backend.store.add_todo(NEIGHBOUR, "回覧板", by="neighbour")
    client, csrf = signed_in(site, "wife", HOME)
    for body in (
        {"action": "check_shopping_item", "id": theirs.id},
        {"action": "remove_shopping_item", "id": theirs.id},
        {"action": "complete_todo", "id": their_todo.id},
        {"action": "remove_todo", "id": their_todo.id},
        {"action": "remove_event", "id": "e_00000000"},
    ):
        response = act(client, csrf, **body)
        assert response.status_code == 404, (body, response.text)
        assert theirs.id not in response.text or "no " in response.json()["error"]
    assert [i.checked for i in site.backend.store.shopping_items(NEIGHBOUR)] == [False]
    assert [t.title for t in site.backend.store.todos(NEIGHBOUR)] == ["回覧板"]


@pytest.mark.parametrize(
    "body",
    [
        {"action": "add_shopping_item", "name": ""},
        {"action": "add_shopping_item", "name": "卵", "quantity": 0},
        {"action": "add_shopping_item", "name": "x" * 101},
        {"action": "add_event", "title": "会議", "start": "明日の10時"},
        {"action": "add_event", "title": "会議", "start": "2026-12-03T10:00+09:00"},
        {"action": "add_event", "title": "会議", "start": "2026-12-03T10:00", "end": "2026-12-02T10:00"},
        {"action": "add_expense", "amount": -5, "category": "食費"},
        {"action": "add_expense", "amount": 500, "category": "食費", "date": "2026-13-01"},
        {"action": "drop_table", "id": "s_1"},
        {"action": "check_shopping_item"},
        {"action": "add_todo", "title": "掃除", "owner": "husband"},
    ],
)
def test_bad_panel_input_is_refused_with_a_4xx_and_changes_nothing(site: Site, body: dict[str, Any]) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    response = act(client, csrf, **body)
    assert response.status_code in (400, 422), response.text
    assert response.json()["error"]
    dump = site.backend.store.dump(HOME)
    assert all(dump[k] == [] for k in ("shopping_items", "todos", "events", "expenses"))


def test_both_spouses_acting_at_once_tick_once_and_delete_once(site: Site) -> None:
    items = [site.backend.store.add_shopping_item(HOME, f"品{n}", by="wife") for n in range(6)]
    with serving(site.app) as base:
        clients = []
        for user in ("wife", "husband"):
            client = httpx.Client(base_url=base)
            signed = client.post("/api/session", json={"user": user, "password": PASSWORD, "household": HOME})
            clients.append((client, signed.json()["csrf"]))
        results: list[tuple[str, str, int, bool]] = []
        lock = threading.Lock()

        def both(action: str, item_id: str) -> None:
            def one(client: httpx.Client, csrf: str) -> None:
                response = client.post(
                    ACT, json={"action": action, "id": item_id}, headers=csrf_headers(csrf)
                )
                changed = response.status_code == 200 and response.json()["changed"]
                with lock:
                    results.append((action, item_id, response.status_code, changed))

            threads = [threading.Thread(target=one, args=pair) for pair in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        for item in items[:3]:
            both("check_shopping_item", item.id)
        for item in items[3:]:
            both("remove_shopping_item", item.id)
        for client, _ in clients:
            client.close()
    for item in items[:3]:  # both answered 200; exactly one of them changed it
        mine = [r for r in results if r[1] == item.id]
        assert sorted(r[2] for r in mine) == [200, 200] and sum(r[3] for r in mine) == 1, mine
    for item in items[3:]:  # one deleted it; the other was told it is gone
        assert sorted(r[2] for r in results if r[1] == item.id) == [200, 404]
    left = site.backend.store.shopping_items(HOME)
    assert [i.id for i in left] == [i.id for i in items[:3]] and all(i.checked for i in left)


def test_the_budget_panel_moves_between_months(site: Site) -> None:
    site.backend.store.add_expense(HOME, 800, "食費", day="2026-10-31", by="wife")
    client, _ = signed_in(site, "wife", HOME)
    october = client.get("/api/panels/budget", params={"month": "2026-10"}).json()
    assert (october["previous"], october["next"], october["total_yen"]) == ("2026-09", "2026-11", 800)
    january = client.get("/api/panels/budget", params={"month": "2026-01"}).json()
    assert (january["previous"], january["next"]) == ("2025-12", "2026-02")
    page = client.get("/panels/budget", params={"month": "2026-10"})
    assert "2026年10月の合計" in page.text and "800円" in page.text


# -- the household's time zone -----------------------------------------------------------


def test_today_is_the_households_whatever_the_servers_zone(tmp_path: Path) -> None:
    # 2026-11-30 16:30 UTC is already 2026-12-01 01:30 in Tokyo
    moment = datetime(2026, 11, 30, 16, 30, tzinfo=UTC)
    store = HouseholdStore(database(tmp_path / "tz.db"), clock=lambda: moment)
    try:
        store.create("futari", ["wife"], time_zone="Asia/Tokyo")
        store.create("london", ["sam"], time_zone="Europe/London")
        assert store.today("futari").isoformat() == "2026-12-01"
        assert store.today("london").isoformat() == "2026-11-30"
        assert store.add_expense("futari", 500, "食費", by="wife").date == "2026-12-01"
        assert [x.amount_yen for x in store.expenses("futari")] == [500]  # "this month" is December there
        store.set_time_zone("futari", "America/Los_Angeles")
        assert store.today("futari").isoformat() == "2026-11-30"
        with pytest.raises(Exception, match="time zone"):
            store.set_time_zone("futari", "Mars/Olympus")
    finally:
        store.close()


def test_the_time_zone_is_changed_by_a_member_and_every_shown_time_follows(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    assert (
        client.put(
            "/api/time-zone", json={"time_zone": "Nowhere/Atlantis"}, headers=csrf_headers(csrf)
        ).status_code
        == 400
    )
    changed = client.put("/api/time-zone", json={"time_zone": "Asia/Tokyo"}, headers=csrf_headers(csrf))
    assert changed.status_code == 200 and changed.json()["time_zone"] == "Asia/Tokyo"
    api.reply(text_response("task"))
    api.reply(tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳"})))
    [card] = [d for n, d in chat(client, csrf, "牛乳") if n == "proposal"]
    local = datetime.fromisoformat(card["expires_at"]).astimezone(ZoneInfo("Asia/Tokyo"))
    assert card["view"]["expires"].endswith(f"{local:%H:%M}")
    assert f"{local.month}月{local.day}日" in card["view"]["expires"]


# -- cards in the page's language --------------------------------------------------------


def test_cards_read_in_the_pages_language_and_a_refused_decision_says_why(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    api.reply(text_response("task"))
    api.reply(
        tool_use_response(
            ("toolu_1", "add_expense", {"amount": 1200, "category": "食費", "note": "スーパー"})
        )
    )
    [card] = [d for n, d in chat(client, csrf, "スーパーで1200円") if n == "proposal"]
    assert card["view"]["title"] == "支出 1,200円(食費)を記録"
    assert {"label": "金額", "value": "1,200円"} in card["view"]["fields"]
    english = client.get(f"/api/proposals/{card['id']}", headers={"Accept-Language": "en-US"}).json()
    assert english["view"]["title"] == "Record ¥1,200 spent on 食費"
    done = client.post(f"/api/proposals/{card['id']}/approve", headers=csrf_headers(csrf)).json()
    assert done["proposal"]["view"]["outcome"] == "支出 1,200円 を記録しました。"
    assert done["proposal"]["result"].startswith("recorded")  # the model's words stay English
    again = client.post(
        f"/api/proposals/{card['id']}/approve", headers={**csrf_headers(csrf), "Accept-Language": "ja"}
    )
    assert again.status_code == 409 and again.json()["code"] == "already_decided"
    assert again.json()["reason_text"].startswith("すでに承認済みです(wife、")
    assert "already" in again.json()["reason"]


# -- a resent message is stored once -------------------------------------------------------


def test_a_message_resent_with_its_key_after_a_failure_is_stored_once(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    api.fail(529, "overloaded_error", "Overloaded", times=3)
    first = events(
        client.post(
            "/api/chat", json={"message": "明日の予定は?", "key": "k-0123456789"}, headers=csrf_headers(csrf)
        ).text
    )
    assert first[-1][0] == "error"
    api.reply(text_response("chat"))
    api.reply(text_response("明日は何もありません。"))
    second = events(
        client.post(
            "/api/chat", json={"message": "明日の予定は?", "key": "k-0123456789"}, headers=csrf_headers(csrf)
        ).text
    )
    assert second[-1][0] == "done"
    items = client.get("/api/conversation").json()["items"]
    said = [i["text"] for i in items if i.get("role") == "user"]
    assert said == ["明日の予定は?"], items
    bad = client.post("/api/chat", json={"message": "x", "key": "no spaces!"}, headers=csrf_headers(csrf))
    assert bad.status_code == 422


# -- invitations and passwords -----------------------------------------------------------------


def test_a_member_invites_a_new_member_who_chooses_a_password_once(site: Site) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    made = client.post("/api/invitations", json={"user": "はなこ"}, headers=csrf_headers(csrf))
    assert made.status_code == 200, made.text
    link = made.json()["link"]
    token = link.rsplit("/", 1)[1]
    assert "/join/" in link and token not in str(
        site.backend.invitations._conn.execute("SELECT * FROM invitations").fetchall()
    )
    newcomer = TestClient(site.app)
    assert newcomer.post("/api/join", json={"token": token, "password": "short"}).status_code == 400
    joined = newcomer.post("/api/join", json={"token": token, "password": "hanako-no-himitsu"})
    assert (
        joined.status_code == 200 and joined.json()["household"] == HOME and joined.json()["user"] == "はなこ"
    )
    assert newcomer.get("/api/me").json()["members"] == ["wife", "husband", "はなこ"]
    reuse = TestClient(site.app).post("/api/join", json={"token": token, "password": "someone-elses-pass"})
    assert reuse.status_code == 404  # a link works once
    again = TestClient(site.app)
    assert (
        again.post(
            "/api/session", json={"user": "はなこ", "password": "hanako-no-himitsu", "household": HOME}
        ).status_code
        == 200
    )


def test_an_expired_link_and_a_link_for_yourself_are_refused(site: Site) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    assert (
        client.post("/api/invitations", json={"user": "wife"}, headers=csrf_headers(csrf)).status_code == 400
    )
    assert (
        client.post("/api/invitations", json={"user": "a/b"}, headers=csrf_headers(csrf)).status_code == 400
    )
    token, _ = site.backend.invitations.create(HOME, "musuko", by="wife", ttl=timedelta(seconds=-1))
    assert (
        TestClient(site.app).post("/api/join", json={"token": token, "password": "long-enough-1"}).status_code
        == 404
    )
    assert "musuko" not in site.backend.store.get(HOME).members
    page = TestClient(site.app).get(f"/join/{token}", headers={"Accept-Language": "ja"})
    assert page.status_code == 404 and "このリンクは使えません" in page.text


def test_a_link_belongs_to_the_household_that_made_it(site: Site) -> None:
    neighbour, csrf = signed_in(site, "neighbour", NEIGHBOUR)
    link = neighbour.post("/api/invitations", json={"user": "wife"}, headers=csrf_headers(csrf)).json()[
        "link"
    ]
    visitor = TestClient(site.app)
    joined = visitor.post("/api/join", json={"token": link.rsplit("/", 1)[1], "password": "tonari-no-tsuma"})
    assert joined.json()["household"] == NEIGHBOUR  # a new "wife" of tonari, not futari's
    assert site.backend.accounts.verify(HOME, "wife", PASSWORD)  # futari's wife is untouched
    assert not site.backend.accounts.verify(HOME, "wife", "tonari-no-tsuma")


def test_changing_your_password_needs_the_current_one(site: Site) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    other, _ = signed_in(site, "wife", HOME)
    wrong = client.put(
        "/api/password", json={"current": "nope", "password": "brand-new-pass"}, headers=csrf_headers(csrf)
    )
    assert wrong.status_code == 400 and site.backend.accounts.verify(HOME, "wife", PASSWORD)
    done = client.put(
        "/api/password", json={"current": PASSWORD, "password": "brand-new-pass"}, headers=csrf_headers(csrf)
    )
    assert done.status_code == 200
    assert client.get("/api/me").status_code == 200  # this session was renewed
    assert other.get("/api/me").status_code == 401  # the other one ended
    assert site.backend.accounts.verify(HOME, "wife", "brand-new-pass")


def test_a_fact_remembered_in_chat_says_which_message_it_came_from(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", HOME)
    api.reply(text_response("task"))
    api.reply(text_response("はい。"))
    chat(client, csrf, "こんにちは")  # the fact comes from the second message, not the first
    api.reply(text_response("task"))
    api.reply(
        tool_use_response(
            ("toolu_1", "remember", {"content": "紅茶はミルクティーが好き", "category": "preference"})
        )
    )
    api.reply(text_response("覚えました。"))  # remember runs without a card: it is the speaker's own memory
    assert chat(client, csrf, "私、紅茶はミルクティー派なの。覚えておいて")[-1][0] == "done"
    [memory] = client.get("/api/memories").json()
    origin = client.get(f"/api/memories/{memory['id']}").json()
    assert [(m["role"], m["text"]) for m in origin["messages"]] == [
        ("user", "私、紅茶はミルクティー派なの。覚えておいて")
    ]


# -- start-up: warm caches, a local model offered ------------------------------------------------


class CountingEmbedder(HashEmbedder):
    """The test embedder, counting the queries it is asked (to see when the model is first used)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def embed_query(self, text: str) -> Vector:
        self.queries += 1
        return super().embed_query(text)


def test_the_embedder_is_loaded_at_start_up_not_on_the_first_message(tmp_path: Path) -> None:
    db = tmp_path / "warm.db"
    HouseholdStore(database(db)).create(HOME, ["wife"])
    embedder = CountingEmbedder()
    memory = MemoryEngine(open_store(db), embedder)
    backend = Backend(Butler(database(db), memory, None, panels=True))
    try:
        assert embedder.queries == 0
        with serving(create_app(backend)):
            assert embedder.queries >= 1  # before any request came
    finally:
        backend.close()
        memory.store.close()


@contextmanager
def openai_compatible(models: list[str]) -> Iterator[str]:
    class Models(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            body = json.dumps({"object": "list", "data": [{"id": m} for m in models]}).encode()
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_local_openai_compatible_server_is_found_on_loopback_and_offered(tmp_path: Path) -> None:
    with openai_compatible(["qwen3:8b", "llama3.2"]) as url:
        found = probe_local((f"http://127.0.0.1:{free_port()}/v1", url))
    assert found is not None and found.url == url and found.models == ("qwen3:8b", "llama3.2")
    assert found.hint == f"SHITSUJI_MODEL_URL={url} SHITSUJI_MODEL=qwen3:8b shitsuji serve"
    started = time.monotonic()
    assert probe_local((f"http://127.0.0.1:{free_port()}/v1",)) is None
    assert time.monotonic() - started < 1.0
    with pytest.raises(ValueError, match="loopback"):
        probe_local(("http://192.168.1.10:11434/v1",))

    offline = make_site(tmp_path / "local.db", None)
    try:
        offline.backend.local_model = found
        client, _ = signed_in(offline, "wife", HOME)
        page = client.get("/", headers={"Accept-Language": "ja"})
        assert "OpenAI 互換サーバーが応答しています" in page.text and found.hint in page.text
    finally:
        offline.close()
