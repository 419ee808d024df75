"""The window and the rolling summary: within budget, tool pairs whole, failures never lose the conversation."""

from __future__ import annotations

import asyncio

import pytest

from shitsuji.context import Summarizer, fit, message_tokens, split_window
from shitsuji.errors import ModelUnavailableError
from shitsuji.llm import Message, ScriptedModel, text_response


def chat(turns: int) -> list[Message]:
    out: list[Message] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"質問{i}: 明日の予定と買い物について教えてください"})
        out.append({"role": "assistant", "content": f"回答{i}: 明日は歯医者、買い物は牛乳です。"})
    return out


def tool_exchange(i: int) -> list[Message]:
    return [
        {"role": "user", "content": f"やること{i}は？"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"t{i}", "name": "list_todos", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ゴミ出し" * 20}],
        },
        {"role": "assistant", "content": "ゴミ出しです"},
    ]


def test_the_window_keeps_the_newest_turns_within_budget() -> None:
    messages = chat(30)
    older, window = split_window(messages, 200)
    assert older + window == messages
    assert sum(message_tokens(m) for m in window) <= 200
    assert window[0]["role"] == "user" and window[-1] == messages[-1]
    assert len(window) >= 2


def test_tool_use_and_its_result_are_never_split() -> None:
    messages = [m for i in range(12) for m in tool_exchange(i)]
    for budget in range(20, 400, 7):
        older, window = split_window(messages, budget)
        assert window[0]["role"] == "user" and isinstance(window[0]["content"], str), budget
        assert older + window == messages


def test_the_newest_turn_is_kept_even_over_budget() -> None:
    messages = tool_exchange(1)
    older, window = split_window(messages, 5)
    assert older == [] and window == messages


def test_overflow_is_folded_into_the_summary() -> None:
    model = ScriptedModel([text_response("ユーザーは明日の予定と買い物を確認した。")])
    folded = asyncio.run(fit(chat(30), "", budget_tokens=200, summarizer=Summarizer(model)))
    assert (
        folded.summary == "ユーザーは明日の予定と買い物を確認した。"
        and folded.folded > 0
        and folded.dropped == 0
    )
    [request] = model.requests
    assert request.model == "claude-haiku-4-5" and "質問0" in request.messages[0]["content"]
    assert "preferences they stated" in request.system[0]["text"]


def test_a_failing_summarizer_drops_old_turns_from_the_request_only() -> None:
    messages = chat(30)
    model = ScriptedModel([ModelUnavailableError("down")])
    folded = asyncio.run(fit(messages, "前の要約", budget_tokens=200, summarizer=Summarizer(model)))
    assert folded.summary == "前の要約" and folded.folded == 0 and folded.dropped > 0
    assert folded.window == messages[folded.dropped :]
    assert len(messages) == 60  # the caller's (stored) history is untouched


def test_nothing_to_fold_makes_no_model_call() -> None:
    model = ScriptedModel([])
    folded = asyncio.run(fit(chat(2), "", budget_tokens=2000, summarizer=Summarizer(model)))
    assert folded.window == chat(2) and model.requests == []


def test_the_estimate_is_calibrated_by_what_the_provider_counted() -> None:
    from shitsuji.context import Calibration
    from shitsuji.llm import Usage

    cal = Calibration()
    assert cal.budget(1000) == 1000
    cal.observe(Usage(input_tokens=150, cache_read_input_tokens=50), estimated=100)  # provider: 2x
    assert cal.ratio == 2.0 and cal.budget(1000) == 500
    cal.observe(Usage(input_tokens=100), estimated=100)
    assert cal.ratio == pytest.approx(0.7 * 2.0 + 0.3 * 1.0)
    cal.observe(Usage(input_tokens=10_000), estimated=100)  # an outlier is clamped
    assert cal.ratio <= 3.0
    cal.observe(Usage(), estimated=100)  # nothing counted: nothing learned
    assert cal.samples == 3
