"""The audit log: every write, card, decision, memory change and sign-in — and who may read which."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shitsuji.agent import Finished
from shitsuji.audit import AuditEvent, AuditLog
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ScriptedModel, text_response, tool_use_response
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.privacy import Viewer
from shitsuji.store import database

from .conftest import Cli
from .web_support import PASSWORD, Site, make_site

WIFE_SCOPE = "household/futari/user/wife"


def turn(butler: Butler, user: str, text: str, channel: str = "app") -> Finished:
    ctx = butler.member(user, channel, household="futari")

    async def run() -> Finished:
        events = [e async for e in butler.service.events(butler.service.begin(ctx, text), mode="task")]
        assert isinstance(events[-1], Finished), events[-1]
        return events[-1]

    return asyncio.run(run())


@pytest.fixture
def butler(target: str, db_path: Path) -> Iterator[Butler]:
    store = HouseholdStore(database(target))
    store.create("futari", ["wife", "husband"])
    store.create("tonari", ["neighbour"])
    store.close()
    model = ScriptedModel(
        [
            tool_use_response(("t1", "add_shopping_item", {"name": "牛乳"})),  # runs at once on line
            text_response("追加しました"),
            tool_use_response(
                ("t2", "add_expense", {"amount": 1200, "category": "食費"})
            ),  # a card ends the turn
            tool_use_response(
                ("t3", "remember", {"content": "紅茶はミルクティー派", "category": "preference"})
            ),
            text_response("覚えました"),
        ]
    )
    made = Butler(database(target), MemoryEngine(open_store(db_path), HashEmbedder()), model)
    yield made
    made.close()


def actions(log: AuditLog, **where: str) -> list[tuple[str, str, str | None]]:
    return [(e.action, e.actor, e.channel) for e in reversed(log.events(**where))]


def test_writes_cards_decisions_and_memory_changes_are_recorded_with_who_and_where(butler: Butler) -> None:
    ran = turn(butler, "wife", "牛乳買っといて", channel="line")
    card = turn(butler, "wife", "食費1200円", channel="line").proposals[0]
    asyncio.run(
        butler.service.decide(butler.member("wife", "app", household="futari"), card.id, approve=True)
    )
    turn(butler, "wife", "紅茶はミルクティーが好きなの")
    [memory] = butler.memory.list_memories(WIFE_SCOPE)
    butler.memory.forget(memory.id, by="wife")
    butler.memory.restore(memory.id, by="wife")
    assert actions(butler.audit, household="futari") == [
        ("tool.ran", "wife", "line"),
        ("proposal.made", "wife", "line"),
        ("proposal.approved", "wife", "line"),
        ("memory.remembered", "wife", "app"),
        ("tool.ran", "wife", "app"),
        ("memory.forgotten", "wife", "app"),
        ("memory.restored", "wife", "app"),
    ]
    [first] = butler.audit.events(household="futari", limit=100)[-1:]
    assert first.conversation == ran.conversation and first.subject == "add_shopping_item"
    assert first.detail["input"] == {"name": "牛乳"}
    approved = next(e for e in butler.audit.events(household="futari") if e.action == "proposal.approved")
    assert (
        approved.subject == card.id
        and approved.detail["tool"] == "add_expense"
        and "1,200" in approved.detail["summary"]
    )


def test_a_member_sees_the_household_and_only_their_own_private_memory_events(target: str) -> None:
    log = AuditLog(database(target))
    for scope, actor in (
        (WIFE_SCOPE, "wife"),
        ("household/futari/user/husband", "husband"),
        ("household/futari", "wife"),
    ):
        log.record(AuditEvent("memory.remembered", actor, scope=scope, subject=f"m_{actor}_{scope[-4:]}"))
    log.record(AuditEvent("tool.ran", "husband", household="futari", channel="app"))
    log.record(AuditEvent("tool.ran", "neighbour", household="tonari", channel="app"))

    def seen(user: str) -> list[tuple[str, str | None]]:
        found = log.events(viewer=Viewer("futari", user))
        return sorted(((e.actor, e.scope) for e in found), key=lambda pair: (pair[0], pair[1] or ""))

    assert seen("husband") == [
        ("husband", "household/futari"),  # a row without a scope is the household's shared one
        ("husband", "household/futari/user/husband"),
        ("wife", "household/futari"),
    ]
    assert ("wife", WIFE_SCOPE) in seen("wife") and ("husband", "household/futari/user/husband") not in seen(
        "wife"
    )
    assert all(
        e.household == "futari" for e in log.events(household="futari")
    )  # the scope names the household


@pytest.fixture
def site(target: str) -> Iterator[Site]:
    made = make_site(target, None)
    yield made
    made.close()


def test_sign_ins_and_the_activity_page(site: Site) -> None:
    client = TestClient(site.app)
    wrong = {"user": "wife", "password": "wrong password!", "household": "futari"}
    assert client.post("/api/session", json=wrong).status_code == 400
    signed = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": "futari"})
    assert signed.status_code == 200
    csrf = signed.json()["csrf"]
    site.backend.memories.memory.remember(
        "夫は辛いものが苦手", "household/futari/user/husband", provenance={"by": "husband"}
    )
    site.backend.memories.memory.remember("ゴミの日は月曜", "household/futari", provenance={"by": "husband"})
    seen = client.get("/api/audit").json()
    kinds = [(e["action"], e["actor"]) for e in seen]
    assert ("signin.ok", "wife") in kinds and ("signin.failed", "wife") in kinds
    assert ("memory.remembered", "husband") in kinds  # the shared one …
    assert all(e["scope"] != "household/futari/user/husband" for e in seen)  # … never his private one
    page = client.get("/activity")
    assert page.status_code == 200 and "ログインしました" in page.text and "辛いもの" not in page.text
    assert "signin.ok" not in page.text.replace('data-action="signin.ok"', "")  # a sentence, not the code
    assert client.request("DELETE", "/api/session", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert site.backend.butler.audit.events(household="futari", limit=1)[0].action == "signout"


def test_the_audit_command_prints_the_log_and_a_members_view(cli: Cli, db_path: Path) -> None:
    assert cli("household", "init", "--name", "futari", "--member", "wife", "--member", "husband").code == 0
    assert cli("remember", "妻の秘密のメモ", "--scope", WIFE_SCOPE).code == 0
    assert cli("remember", "ゴミの日は月曜", "--scope", "household/futari").code == 0
    every = cli("audit", "--json").json()
    assert [e["action"] for e in every] == ["memory.remembered", "memory.remembered"]
    assert {e["actor"] for e in every} == {"cli"}
    husband = cli("audit", "--user", "husband", "--json").json()
    assert [e["scope"] for e in husband] == ["household/futari"]
    text = cli("audit")
    assert text.code == 0 and "memory.remembered" in text.out
