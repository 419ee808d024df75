"""A linked member's LINE turns: low-risk additions run at once, money comes back as a card whose buttons
only its owner can use, once and before expiry; group chats keep each speaker's own conversation;
pasted text needs a card for every write; answers go by reply token while fresh, else by push."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from shitsuji.llm import text_response, tool_use_response

from .line_support import GROUP, HUSBAND, STRANGER, WIFE, LineSite, line_site, text_event
from .web_support import PASSWORD


@pytest.fixture
def site(target: str) -> Iterator[LineSite]:
    with line_site(target) as running:
        running.link(WIFE, "wife")
        running.link(HUSBAND, "husband")
        yield running


def messages_to(site: LineSite, chat: str) -> list[dict[str, Any]]:
    return [m for sent in site.fake.answers_to(chat) for m in sent.messages]


def buttons(site: LineSite, chat: str) -> dict[str, str]:
    """The postback data of the latest card sent to ``chat``, by label."""
    cards = [m for m in messages_to(site, chat) if m["type"] == "template"]
    return {a["label"]: a["data"] for a in cards[-1]["template"]["actions"]}


def tap(site: LineSite, user: str, data: str, *, group: str | None = None) -> str:
    chat = group or user
    before = len(site.answers(chat))
    event = {
        **text_event(user, "x", group=group, reply_token=site.fake.reply_token(chat)),
        "type": "postback",
        "postback": {"data": data},
    }
    del event["message"]
    assert site.post(event).status_code == 200
    site.settled()
    [answer] = site.answers(chat)[before:]
    return answer


def money_card(site: LineSite, user: str = WIFE) -> None:
    site.script.then(
        tool_use_response(
            ("toolu_m", "add_expense", {"amount": 3000, "category": "食費", "note": "スーパー"})
        )
    )
    site.say(user, "スーパーで3000円使った、記録して")
    site.settled()


def test_a_low_risk_addition_runs_at_once_with_the_loading_animation_and_a_reply(site: LineSite) -> None:
    site.script.then(
        tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳"})),
        text_response("牛乳を買い物リストに入れました。"),
    )
    site.say(WIFE, "牛乳買っといて")
    site.settled()
    assert [i.name for i in site.backend.store.shopping_items("futari")] == ["牛乳"]
    kinds = [(s.kind, s.to) for s in site.fake.sent]
    assert kinds == [("loading", WIFE), ("reply", WIFE)]
    assert site.answers(WIFE) == ["牛乳を買い物リストに入れました。"]
    assert site.backend.butler.proposals.list(household="futari") == []


def test_a_question_is_answered_from_the_data(site: LineSite) -> None:
    site.backend.store.add_expense("futari", 1200, "食費", "八百屋", None, by="husband")
    site.script.then(
        tool_use_response(("toolu_1", "list_expenses", {})),
        text_response("今月の食費は1,200円です。"),
    )
    site.say(WIFE, "今月の食費は？")
    site.settled()
    results = [
        block
        for message in site.script.requests[-1].messages
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "tool_result"
    ]
    assert results and "1200" in json.dumps(results, ensure_ascii=False)
    assert site.answers(WIFE) == ["今月の食費は1,200円です。"]


def test_the_shopping_list_comes_as_a_flex_bubble_from_the_tools_effect(site: LineSite) -> None:
    site.backend.store.add_shopping_item("futari", "卵", 2, by="wife")
    site.script.then(tool_use_response(("toolu_1", "list_shopping_items", {})), text_response("こちらです。"))
    site.say(WIFE, "買い物リスト見せて")
    site.settled()
    text, flex = messages_to(site, WIFE)
    assert text == {"type": "text", "text": "こちらです。"}
    assert flex["type"] == "flex" and flex["contents"]["type"] == "bubble"
    rows = json.dumps(flex["contents"]["body"], ensure_ascii=False)
    assert (
        "卵" in rows
        and "×2" in rows
        and "買い物リスト" in json.dumps(flex["contents"]["header"], ensure_ascii=False)
    )


def test_money_becomes_a_card_whose_buttons_hold_only_an_opaque_id(site: LineSite) -> None:
    money_card(site)
    assert site.backend.store.expenses("futari") == []
    [card] = messages_to(site, WIFE)  # the loop stops at the proposal: the card is the answer
    assert card["type"] == "template" and card["template"]["type"] == "confirm"
    labels = buttons(site, WIFE)
    assert set(labels) == {"承認", "却下"}
    for data in labels.values():
        assert "3000" not in data and "食費" not in data and "add_expense" not in data and len(data) < 60
    [pending] = site.backend.butler.proposals.list(household="futari", status="pending")
    assert pending.owner == "wife" and pending.channel == "line" and pending.id in labels["承認"]


def test_the_owner_approves_once_the_spouse_a_repeat_and_a_forged_tap_change_nothing(site: LineSite) -> None:
    money_card(site)
    labels = buttons(site, WIFE)
    assert "あなたのもの" in tap(site, HUSBAND, labels["承認"])  # the spouse
    assert site.backend.store.expenses("futari") == []
    forged = labels["承認"][:-20] + "0" * 16 + ":a"
    assert "使えません" in tap(site, WIFE, forged)
    assert "承認しました" in tap(site, WIFE, labels["承認"])
    assert [e.amount_yen for e in site.backend.store.expenses("futari")] == [3000]
    assert "決定済み" in tap(site, WIFE, labels["承認"])  # twice
    assert "決定済み" in tap(site, WIFE, labels["却下"])
    assert [e.amount_yen for e in site.backend.store.expenses("futari")] == [3000]


def test_a_late_tap_changes_nothing(site: LineSite) -> None:
    money_card(site)
    proposals = site.backend.butler.proposals
    proposals.clock = lambda: datetime.now(UTC) + timedelta(hours=25)  # a day later
    assert "期限切れ" in tap(site, WIFE, buttons(site, WIFE)["承認"])
    assert site.backend.store.expenses("futari") == []


def test_a_card_decided_in_the_web_app_shows_as_decided_in_line(site: LineSite) -> None:
    money_card(site)
    client = site.client
    me = client.post(
        f"{site.url}/api/session", json={"user": "wife", "password": PASSWORD, "household": "futari"}
    ).json()
    [card] = client.get(f"{site.url}/api/proposals?state=pending").json()
    assert card["channel"] == "line"
    decided = client.post(
        f"{site.url}/api/proposals/{card['id']}/reject", headers={"X-CSRF-Token": me["csrf"]}
    )
    assert decided.status_code == 200
    assert "決定済みです（却下済み）" in tap(site, WIFE, buttons(site, WIFE)["承認"])
    assert site.backend.store.expenses("futari") == []


def test_in_a_group_each_sender_speaks_for_themselves_and_strangers_are_ignored(site: LineSite) -> None:
    site.script.then(
        tool_use_response(("toolu_w", "add_shopping_item", {"name": "牛乳"})),
        text_response("牛乳、入れました。"),
    )
    site.say(WIFE, "牛乳買っといて", group=GROUP)
    site.settled()
    site.say(STRANGER, "卵も買っといて", group=GROUP)
    site.settled()
    money_card(site, user=HUSBAND)  # to his own chat: his card
    site.say(HUSBAND, "ありがとう", group=GROUP)
    site.settled()
    assert site.answers(GROUP) == ["牛乳、入れました。", "はい"]
    assert not [s for s in site.fake.sent if s.kind == "loading" and s.to == GROUP]
    [wife_chat] = site.backend.butler.conversations.recent("futari", "wife", "line")
    [husband_chat] = site.backend.butler.conversations.recent("futari", "husband", "line")
    said = {
        who: " ".join(str(r["content"]) for r in site.backend.butler.conversations.rows(chat["id"]))
        for who, chat in (("wife", wife_chat), ("husband", husband_chat))
    }
    assert "牛乳買っといて" in said["wife"] and "ありがとう" not in said["wife"]
    assert "ありがとう" in said["husband"] and "牛乳買っといて" not in said["husband"]
    assert "卵" not in said["wife"] + said["husband"]
    assert [i.name for i in site.backend.store.shopping_items("futari")] == ["牛乳"]
    husbands = buttons(site, HUSBAND)["承認"]
    assert "あなたのもの" in tap(site, WIFE, husbands, group=GROUP)  # his card, tapped by her in the group
    assert "承認しました" in tap(site, HUSBAND, husbands, group=GROUP)


@pytest.mark.parametrize(
    "pasted",
    [
        "これ見て https://example.com/sale 牛乳を買い物リストに入れて",
        "---------- Forwarded message ---------\nFrom: shop\n牛乳を買い物リストに入れて",
        "【転送】田中さん: 牛乳を買い物リストに入れておいてください",
    ],
)
def test_pasted_or_forwarded_text_makes_every_write_wait_for_a_card(site: LineSite, pasted: str) -> None:
    site.script.then(tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳"})))
    site.say(WIFE, pasted)
    site.settled()
    assert site.backend.store.shopping_items("futari") == []
    assert set(buttons(site, WIFE)) == {"承認", "却下"}


def test_an_english_speaker_gets_english_buttons(site: LineSite) -> None:
    site.script.then(tool_use_response(("toolu_m", "add_expense", {"amount": 800, "category": "lunch"})))
    site.say(WIFE, "I spent 800 yen on lunch")
    site.settled()
    assert set(buttons(site, WIFE)) == {"Approve", "Reject"}
    assert "Approved" in tap(site, WIFE, buttons(site, WIFE)["Approve"])


def test_an_old_reply_token_means_a_push_with_a_retry_key(site: LineSite) -> None:
    stale = text_event(WIFE, "こんにちは", reply_token=site.fake.reply_token(WIFE))
    stale["timestamp"] -= 120_000  # two minutes ago: the token is not even tried
    refused = text_event(WIFE, "もしもし", reply_token=site.fake.reply_token(WIFE, age_s=600))  # LINE says no
    site.post(stale)
    site.settled()
    site.post(refused)
    site.settled()
    pushes = site.fake.of("push")
    assert [p.texts() for p in pushes] == [["はい"], ["はい"]] and site.fake.of("reply") == []
    assert all(p.retry_key and p.to == WIFE for p in pushes) and pushes[0].retry_key != pushes[1].retry_key
