"""`shitsuji chat` and `shitsuji proposals` end to end: the real SDK against the local fake API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shitsuji.llm import text_response, tool_use_response
from shitsuji.store import database

from .conftest import Cli
from .fake_anthropic import FakeMessagesAPI


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in ("SHITSUJI_MODEL", "SHITSUJI_CONFIG", "SHITSUJI_ROUTER_MODEL", "SHITSUJI_MODEL_URL"):
            monkeypatch.delenv(name, raising=False)
        # extraction has its own test below; elsewhere it would add model calls to every turn
        monkeypatch.setenv("SHITSUJI_EXTRACTION_OFF_CHANNELS", "app,line")
        yield fake


@pytest.fixture
def home(cli: Cli) -> None:
    assert cli("household", "init", "--name", "futari", "--member", "wife", "--member", "husband").code == 0


def test_one_shot_chat_makes_a_proposal_the_owner_approves_once(
    api: FakeMessagesAPI, cli: Cli, home: None
) -> None:
    api.reply(text_response("task"))  # the router
    api.reply(
        tool_use_response(
            ("toolu_1", "add_shopping_item", {"name": "牛乳", "quantity": 2}), text="追加しますね。"
        )
    )
    out = cli("chat", "--user", "wife", "--message", "牛乳を2本買い物リストに入れて", "--json")
    assert out.code == 0, out.err
    data = out.json()
    assert (
        data["reply"] == "追加しますね。" and data["mode"] == "task" and data["conversation"].startswith("c_")
    )
    [card] = data["proposals"]
    assert card["tool"] == "add_shopping_item" and card["input"] == {"name": "牛乳", "quantity": 2}
    assert card["status"] == "pending" and "牛乳" in card["summary"]
    assert api.requests[0]["model"] == "claude-haiku-4-5" and api.requests[1]["model"] == "claude-sonnet-4-6"
    assert api.requests[1]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert cli("household", "shopping", "--json").json() == []  # nothing written yet

    assert cli("proposals", "approve", card["id"], "--user", "husband").code == 1  # not his
    listed = cli("proposals", "list", "--user", "wife", "--json").json()
    assert [p["id"] for p in listed] == [card["id"]]
    approved = cli("proposals", "approve", card["id"], "--user", "wife", "--json")
    assert approved.code == 0 and approved.json()["proposal"]["status"] == "approved"
    again = cli("proposals", "approve", card["id"], "--user", "wife")
    assert (
        again.code == 1
        and again.out == ""
        and again.err.startswith("error: ")
        and "already approved" in again.err
    )
    [item] = cli("household", "shopping", "--json").json()
    assert item["name"] == "牛乳" and item["quantity"] == 2


def test_line_adds_shopping_items_without_a_card(api: FakeMessagesAPI, cli: Cli, home: None) -> None:
    api.reply(tool_use_response(("toolu_1", "add_shopping_item", {"name": "卵"})))
    api.reply(text_response("卵を追加しました"))
    out = cli("chat", "--user", "husband", "--channel", "line", "--mode", "task", "--message", "卵", "--json")
    assert out.code == 0 and out.json()["proposals"] == [] and out.json()["reply"] == "卵を追加しました"
    assert [i["name"] for i in cli("household", "shopping", "--json").json()] == ["卵"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--user", "tanaka", "--message", "hi"), "not a member"),
        (("--user", "wife", "--message", "   "), "empty"),
        (("--user", "wife", "--message", "hi", "--mode", "turbo"), "unknown mode"),
    ],
)
def test_bad_chat_input_gets_one_clear_line(
    api: FakeMessagesAPI, cli: Cli, home: None, args: tuple[str, ...], needle: str
) -> None:
    out = cli("chat", *args)
    assert out.code == 1 and needle in out.err and "Traceback" not in out.err
    assert api.requests == []


def test_a_missing_or_dead_model_endpoint_is_one_clear_line(
    cli: Cli, home: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "SHITSUJI_MODEL_URL"):
        monkeypatch.delenv(name, raising=False)
    out = cli("chat", "--user", "wife", "--message", "hi")
    assert out.code == 1 and "set ANTHROPIC_API_KEY" in out.err
    with FakeMessagesAPI().running() as dead:
        dead.fail(529, "overloaded_error", "Overloaded", times=10)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", dead.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        out = cli("chat", "--user", "wife", "--mode", "chat", "--message", "hi")
    assert out.code == 1 and "try again later" in out.err


def test_interactive_chat_streams_asks_for_each_card_and_tells_the_model(
    api: FakeMessagesAPI, cli: Cli, home: None
) -> None:
    api.reply(text_response("task"))
    api.reply(
        tool_use_response(("toolu_1", "add_todo", {"title": "年賀状を書く"}), text="ToDoに追加しますね。")
    )
    api.reply(text_response("chat"))
    api.reply(text_response("どういたしまして。"))
    out = cli("chat", "--user", "wife", stdin="年賀状を書くをToDoに\ny\nありがとう\n\n")
    assert out.code == 0, out.err
    assert "ToDoに追加しますね。" in out.out and "どういたしまして。" in out.out
    assert "年賀状を書く" in out.out and "approve?" in out.out
    assert [t["title"] for t in cli("household", "todos", "--json").json()] == ["年賀状を書く"]
    last = api.requests[-1]["messages"][-1]
    said = json.dumps(last, ensure_ascii=False)
    assert "The person approved proposal" in said and "ありがとう" in said
    assert api.requests[1]["stream"] is True  # the answer was streamed to the terminal


def test_a_conversation_continues_and_hears_about_later_decisions(
    api: FakeMessagesAPI, cli: Cli, home: None
) -> None:
    api.reply(
        tool_use_response(
            ("toolu_1", "add_expense", {"amount": 1200, "category": "食費"}), text="記録しますね。"
        )
    )
    first = cli("chat", "--user", "wife", "--mode", "task", "--message", "食費1200円つけて", "--json").json()
    conversation, card = first["conversation"], first["proposals"][0]
    assert cli("proposals", "approve", card["id"], "--user", "wife").code == 0

    api.reply(text_response("記録しました。"))
    again = cli(
        "chat",
        "--user",
        "wife",
        "--mode",
        "chat",
        "--conversation",
        conversation,
        "--message",
        "ありがとう",
        "--json",
    )
    assert again.code == 0 and again.json()["conversation"] == conversation
    sent = api.requests[-1]["messages"]
    assert sent[0]["content"] == "食費1200円つけて" and sent[1]["role"] == "assistant"
    told = json.dumps(sent[-1], ensure_ascii=False)
    assert "The person approved proposal " + card["id"] in told and "ありがとう" in told

    api.reply(text_response("はい"))
    cli("chat", "--user", "wife", "--mode", "chat", "--conversation", conversation, "--message", "またね")
    assert "The person approved" not in json.dumps(
        api.requests[-1]["messages"][-1], ensure_ascii=False
    )  # told once

    other = cli("chat", "--user", "husband", "--conversation", conversation, "--message", "見せて")
    assert other.code == 1 and "no conversation" in other.err


def test_each_spouses_request_carries_only_their_own_memories(
    api: FakeMessagesAPI, cli: Cli, home: None
) -> None:
    cli("remember", "妻は紅茶はミルクティーが好き", "--scope", "household/futari/user/wife")
    cli("remember", "夫はコーヒーはブラックが好き", "--scope", "household/futari/user/husband")
    cli("remember", "ゴミの日は月曜と木曜、好きな飲み物も買う", "--scope", "household/futari")
    for _ in range(2):
        api.reply(text_response("はい"))
    cli("chat", "--user", "wife", "--mode", "chat", "--message", "好きな飲み物は？")
    cli("chat", "--user", "husband", "--mode", "chat", "--message", "好きな飲み物は？")
    wife, husband = (json.dumps(r, ensure_ascii=False) for r in api.requests[-2:])
    assert "ミルクティー" in wife and "ブラック" not in wife
    assert "ブラック" in husband and "ミルクティー" not in husband
    assert "ゴミの日" in wife and "ゴミの日" in husband


def test_facts_about_the_speaker_are_extracted_after_the_reply(
    api: FakeMessagesAPI, cli: Cli, home: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHITSUJI_EXTRACTION_OFF_CHANNELS")
    api.reply(text_response("それは素敵ですね。"))
    facts = [{"fact": "妻は毎朝ヨガをしている", "category": "profile", "importance": 0.8}]
    api.reply(text_response(json.dumps(facts, ensure_ascii=False)))
    out = cli("chat", "--user", "wife", "--mode", "chat", "--message", "毎朝ヨガをしているの", "--json")
    assert out.code == 0 and out.json()["reply"] == "それは素敵ですね。"
    assert api.requests[-1]["model"] == "claude-haiku-4-5"  # the cheap model, after the reply
    [memory] = cli("list", "--scope", "household/futari/user/wife", "--json").json()
    assert memory["content"] == "妻は毎朝ヨガをしている" and memory["source"] == "extracted"
    assert memory["provenance"]["conversation"] == out.json()["conversation"]


def test_segments_follow_the_callers_label(api: FakeMessagesAPI, cli: Cli, home: None, db_path: Path) -> None:
    from shitsuji.context import Segments

    api.reply(text_response("買い物リストを見ています"))
    first = cli(
        "chat",
        "--user",
        "wife",
        "--mode",
        "chat",
        "--segment",
        "household.shopping",
        "--message",
        "買い物の話",
        "--json",
    )
    conversation = first.json()["conversation"]
    api.reply(text_response("牛乳を買う話をした。"))  # the segment's summary, when it closes
    api.reply(text_response("はい"))
    cli(
        "chat",
        "--user",
        "wife",
        "--mode",
        "chat",
        "--conversation",
        conversation,
        "--segment",
        "none",
        "--message",
        "おわり",
    )
    [segment] = Segments(database(db_path)).index("futari", "wife", label="household.shopping")
    assert segment.summary == "牛乳を買う話をした。" and segment.conversation == conversation
    assert Segments(database(db_path)).load(segment.id, "futari", "wife")[0]["content"] == "買い物の話"
    tools = [t["name"] for t in api.requests[-1]["tools"]]
    assert "list_segments" in tools and "load_segment" in tools

    api.reply(text_response("前回は牛乳の話でした"))  # reopening the panel offers its earlier segments
    cli(
        "chat",
        "--user",
        "wife",
        "--mode",
        "chat",
        "--segment",
        "household.shopping",
        "--message",
        "前は何を話した？",
    )
    # the per-turn part of the system prompt travels at the head of the turn (the cached prefix stays put)
    assert len(api.requests[-1]["system"]) == 1
    system = api.requests[-1]["messages"][-1]["content"][0]["text"]
    assert "Earlier conversations about what is open now" in system and segment.id in system
    assert "牛乳を買う話をした。" in system


def test_chat_before_any_household_says_how_to_create_one(api: FakeMessagesAPI, cli: Cli) -> None:
    out = cli("chat", "--user", "wife", "--message", "hi")
    assert out.code == 1 and "shitsuji household init" in out.err


def test_every_message_is_stored_with_its_metadata(
    api: FakeMessagesAPI, cli: Cli, home: None, db_path: Path
) -> None:
    from shitsuji.agent import Conversations

    api.reply(text_response("こんにちは"))
    out = cli(
        "chat",
        "--user",
        "wife",
        "--channel",
        "line",
        "--mode",
        "chat",
        "--segment",
        "chat",
        "--message",
        "やあ",
        "--json",
    )
    rows = Conversations(database(db_path)).rows(out.json()["conversation"])
    assert [(r["seq"], r["role"], r["speaker"], r["channel"], r["segment"]) for r in rows] == [
        (0, "user", "wife", "line", "chat"),
        (1, "assistant", "shitsuji", "line", "chat"),
    ]
    assert all(int(str(r["tokens"])) > 0 and r["created_at"] for r in rows)


def test_a_dead_model_loses_nothing_the_next_turn_sees_the_words_again(
    api: FakeMessagesAPI, cli: Cli, home: None, db_path: Path
) -> None:
    from shitsuji.agent import Conversations

    api.fail(400, "invalid_request_error", "model is down for maintenance")
    failed = cli("chat", "--user", "wife", "--mode", "chat", "--message", "明日は燃えるゴミの日")
    assert failed.code == 1 and "maintenance" in failed.err
    store = Conversations(database(db_path))
    talk = store.latest("futari", "wife", "app")
    assert talk is not None and talk.messages == [{"role": "user", "content": "明日は燃えるゴミの日"}]
    api.reply(text_response("了解です。"))
    again = cli(
        "chat", "--user", "wife", "--mode", "chat", "--conversation", talk.id, "--message", "覚えてね"
    )
    assert again.code == 0, again.err
    sent = json.dumps(api.requests[-1]["messages"], ensure_ascii=False)
    assert "明日は燃えるゴミの日" in sent and "覚えてね" in sent
