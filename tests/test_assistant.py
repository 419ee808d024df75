"""A whole turn: routing, the prompt built from the speaker's own context, history handling."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from shitsuji.agent import (
    AnswerStep,
    Assistant,
    History,
    ModelNotes,
    Proposals,
    RoutedStep,
    Toolbox,
    ToolContext,
    tool,
    with_user_text,
)
from shitsuji.errors import UserInputError
from shitsuji.llm import ScriptedModel, text_response, tool_use_response
from shitsuji.memory import MemoryEngine
from shitsuji.store import database

HOME = "household/futari"
WIFE = ToolContext(deps=None, user="wife", scope=f"{HOME}/user/wife", channel="app", household="futari")
HUSBAND = ToolContext(
    deps=None, user="husband", scope=f"{HOME}/user/husband", channel="app", household="futari"
)


@tool(effect="write", summary=lambda a: f"「{a['name']}」を買い物リストに追加")
def add_shopping_item(ctx: ToolContext[None], name: str) -> str:
    """Add to the shopping list."""
    return f"added {name}"


def assistant(engine: MemoryEngine, db_path: Path, script: list[object]) -> tuple[Assistant, ScriptedModel]:
    model = ScriptedModel(script)  # type: ignore[arg-type]
    return (
        Assistant(
            model=model,
            toolbox=Toolbox([add_shopping_item]),
            proposals=Proposals(database(db_path)),
            router=ScriptedModel(lambda req: text_response("task")),
            memories=lambda text, ctx: engine.recall(text, ctx.scope, k=10),
            count_index=lambda ctx: "買い物 2件",
        ),
        model,
    )


def test_one_spouse_never_sees_the_others_memories(engine: MemoryEngine, db_path: Path) -> None:
    engine.remember("妻は紅茶が好き", WIFE.scope)
    engine.remember("夫はコーヒーが好き", HUSBAND.scope)
    engine.remember("ゴミの日は月曜", HOME)
    bot, model = assistant(engine, db_path, [text_response("はい"), text_response("はい")])
    asyncio.run(bot.reply(WIFE, "好きな飲み物は？"))
    asyncio.run(bot.reply(HUSBAND, "好きな飲み物は？"))
    wife_request, husband_request = (
        json.dumps([r.system, r.messages], ensure_ascii=False) for r in model.requests
    )
    assert "妻は紅茶が好き" in wife_request and "夫はコーヒーが好き" not in wife_request
    assert "夫はコーヒーが好き" in husband_request and "妻は紅茶が好き" not in husband_request
    assert "買い物 2件" in wife_request


def test_routed_or_forced_mode(engine: MemoryEngine, db_path: Path) -> None:
    bot, model = assistant(engine, db_path, [text_response("ok"), text_response("ok")])
    mode, answer = asyncio.run(bot.reply(WIFE, "ありがとう"))
    assert mode.name == "task" and answer.text == "ok"  # the router said task
    mode, _ = asyncio.run(bot.reply(WIFE, "ありがとう", mode="chat"))
    assert mode.name == "chat" and model.requests[1].model == "claude-haiku-4-5"

    async def first_step() -> object:
        return await anext(aiter(bot.turn(WIFE, History.plain([], "hi"), text="hi", mode="info")))

    assert isinstance(asyncio.run(first_step()), RoutedStep)
    with pytest.raises(UserInputError, match="unknown mode"):
        asyncio.run(bot.reply(WIFE, "hi", mode="turbo"))


@pytest.mark.parametrize(("message", "needle"), [("   ", "empty"), ("あ" * 8001, "limit is 8,000")])
def test_bad_messages_are_refused_before_any_model_call(
    engine: MemoryEngine, db_path: Path, message: str, needle: str
) -> None:
    bot, model = assistant(engine, db_path, [])
    with pytest.raises(UserInputError, match=needle):
        asyncio.run(bot.reply(WIFE, message))
    assert model.requests == []


def test_a_proposal_turn_then_the_next_message_keeps_the_history_valid(
    engine: MemoryEngine, db_path: Path
) -> None:
    bot, model = assistant(
        engine,
        db_path,
        [
            tool_use_response(("t1", "add_shopping_item", {"name": "牛乳"}), text="追加しますね"),
            text_response("了解"),
        ],
    )
    _, first = asyncio.run(bot.reply(WIFE, "牛乳を買い物リストに"))
    assert [p.summary for p in first.proposals] == ["「牛乳」を買い物リストに追加"]
    decision = asyncio.run(bot.proposals.approve(first.proposals[0].id, WIFE, bot.toolbox))
    note = ModelNotes().decision(decision)
    assert note.startswith("[The person approved proposal") and "added 牛乳" in note
    asyncio.run(bot.reply(WIFE, note + " ありがとう", first.messages))
    sent = model.requests[1].messages
    roles = [m["role"] for m in sent]
    assert roles == ["user", "assistant", "user"]  # results and the new text share one user message
    assert sent[-1]["content"][0]["type"] == "tool_result" and "ありがとう" in sent[-1]["content"][1]["text"]


def test_with_user_text_appends_or_merges() -> None:
    assert with_user_text([], "hi") == [{"role": "user", "content": "hi"}]
    merged = with_user_text([{"role": "assistant", "content": "a"}, {"role": "user", "content": "x"}], "y")
    assert merged[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
    }


def test_a_long_conversation_sends_a_summary_and_the_window_but_keeps_everything(
    engine: MemoryEngine, db_path: Path
) -> None:
    from dataclasses import replace

    from shitsuji.agent import DEFAULT_MODES
    from shitsuji.context import Summarizer

    history = []
    for i in range(40):
        history += [
            {"role": "user", "content": f"質問{i}: 来週の予定を教えて"},
            {"role": "assistant", "content": f"回答{i}: 来週は歯医者です"},
        ]
    summarizer_model = ScriptedModel([text_response("歯医者の予定を何度も確認した。")])
    bot, model = assistant(engine, db_path, [text_response("はい、歯医者です")])
    bot.summarizer = Summarizer(summarizer_model)
    bot.modes = {name: replace(m, window_tokens=150) for name, m in DEFAULT_MODES.items()}
    _, answer = asyncio.run(bot.reply(WIFE, "もう一度だけ", history, mode="chat"))
    [request] = model.requests
    assert len(request.messages) < 20 and request.messages[-1]["content"] == "もう一度だけ"
    assert "歯医者の予定を何度も確認した。" in request.system[1]["text"]
    assert answer.messages[: len(history)] == history and len(answer.messages) == len(history) + 2
    assert answer.summary == "歯医者の予定を何度も確認した。" and 0 < answer.folded_upto < len(history)
    # the next turn starts from the stored summary: nothing new to fold, no summarizer call
    bot.model = ScriptedModel([text_response("どういたしまして")])
    later = History(
        with_user_text(answer.messages, "ありがとう"), summary=answer.summary, folded_upto=answer.folded_upto
    )

    async def next_turn() -> list[object]:
        return [step async for step in bot.turn(WIFE, later, text="ありがとう", mode="chat")]

    assert isinstance(asyncio.run(next_turn())[-1], AnswerStep)
    assert len(summarizer_model.requests) == 1


def test_pending_cards_stay_visible_to_the_model(engine: MemoryEngine, db_path: Path) -> None:
    from dataclasses import replace as dc_replace

    bot, model = assistant(
        engine,
        db_path,
        [tool_use_response(("t1", "add_shopping_item", {"name": "牛乳"})), text_response("はい")],
    )
    ctx = dc_replace(WIFE, conversation="c_test")
    _, first = asyncio.run(bot.reply(ctx, "牛乳を追加", mode="task"))
    asyncio.run(bot.reply(ctx, "ほかには？", first.messages, mode="chat"))
    assert f"{first.proposals[0].id}: 「牛乳」を買い物リストに追加" in model.requests[1].system[1]["text"]
