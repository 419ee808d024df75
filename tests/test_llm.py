"""The model layer: the real anthropic SDK against a local fake Messages API, and the scripted model."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from shitsuji.errors import ModelError, ModelRequestError, ModelUnavailableError
from shitsuji.llm import (
    AnthropicModel,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    Usage,
    text_response,
    tool_use_response,
)

from .fake_anthropic import FakeMessagesAPI

PERSONA = {"type": "text", "text": "You are a butler.", "cache_control": {"type": "ephemeral"}}
TOOLS = [
    {
        "name": "list_todos",
        "description": "List the household's to-dos.",
        "input_schema": {"type": "object", "properties": {}},
    }
]


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


def request(**overrides: object) -> ModelRequest:
    base: dict[str, object] = {
        "model": "claude-test",
        "messages": [{"role": "user", "content": "今日のやることは？"}],
        "system": [PERSONA],
        "tools": TOOLS,
        "max_tokens": 200,
    }
    return ModelRequest(**(base | overrides))  # type: ignore[arg-type]


def model(api: FakeMessagesAPI, **kwargs: object) -> AnthropicModel:
    return AnthropicModel(api_key="test-key", base_url=api.url, **kwargs)  # type: ignore[arg-type]


def test_text_reply_with_usage_and_the_request_on_the_wire(api: FakeMessagesAPI) -> None:
    api.reply(
        ModelResponse(
            content=[{"type": "text", "text": "かしこまりました。"}],
            stop_reason="end_turn",
            usage=Usage(input_tokens=120, output_tokens=9, cache_read_input_tokens=100),
        )
    )
    answer = asyncio.run(model(api).respond(request()))
    assert answer.text == "かしこまりました。" and answer.stop_reason == "end_turn"
    assert answer.usage == Usage(input_tokens=120, output_tokens=9, cache_read_input_tokens=100)
    [sent] = api.requests
    assert sent["system"] == [PERSONA]  # cache_control reaches the API untouched
    assert sent["tools"] == TOOLS and sent["max_tokens"] == 200 and sent["model"] == "claude-test"
    key_headers = (api.headers[0].get("x-api-key", ""), api.headers[0].get("authorization", ""))
    assert any(h.endswith("test-key") for h in key_headers)  # SDK versions differ in which header


def test_tool_use_and_other_stop_reasons_are_parsed(api: FakeMessagesAPI) -> None:
    api.reply(tool_use_response(("toolu_1", "list_todos", {}), text="確認します。"))
    api.reply(text_response("…", stop_reason="pause_turn"))
    api.reply(text_response("I can't help with that.", stop_reason="refusal"))
    m = model(api)
    first = asyncio.run(m.respond(request()))
    assert first.stop_reason == "tool_use"
    assert first.tool_uses == [{"type": "tool_use", "id": "toolu_1", "name": "list_todos", "input": {}}]
    assert asyncio.run(m.respond(request())).stop_reason == "pause_turn"
    assert asyncio.run(m.respond(request())).stop_reason == "refusal"


def test_a_budget_model_gets_a_thinking_budget_above_the_answers_room(api: FakeMessagesAPI) -> None:
    api.reply(text_response("ok"))
    asyncio.run(model(api).respond(request(model="claude-sonnet-4-5", depth="normal", max_tokens=4096)))
    assert api.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert api.requests[0]["max_tokens"] == 8192


def test_overloaded_and_rate_limited_calls_are_retried(api: FakeMessagesAPI) -> None:
    api.fail(529, "overloaded_error", "Overloaded")
    api.fail(429, "rate_limit_error", "slow down")
    api.reply(text_response("やっと"))
    answer = asyncio.run(model(api, max_retries=3).respond(request()))
    assert answer.text == "やっと" and len(api.requests) == 3


def test_an_endpoint_that_stays_down_gives_a_clear_error(api: FakeMessagesAPI) -> None:
    api.fail(500, "api_error", "boom", times=3)
    with pytest.raises(ModelUnavailableError, match="HTTP 500 after 3 tries"):
        asyncio.run(model(api, max_retries=2).respond(request()))
    assert len(api.requests) == 3


def test_a_refused_request_is_not_retried(api: FakeMessagesAPI) -> None:
    api.fail(400, "invalid_request_error", "messages: text content blocks must be non-empty")
    with pytest.raises(ModelRequestError, match="must be non-empty"):
        asyncio.run(model(api).respond(request()))
    api.fail(401, "authentication_error", "invalid x-api-key")
    with pytest.raises(ModelRequestError, match="ANTHROPIC_API_KEY"):
        asyncio.run(model(api).respond(request()))
    assert len(api.requests) == 2


def test_a_silent_endpoint_times_out(api: FakeMessagesAPI) -> None:
    api.reply(text_response("too late"), delay_s=1.0)
    with pytest.raises(ModelUnavailableError, match="did not answer in time"):
        asyncio.run(model(api, timeout=0.2, max_retries=0).respond(request()))


def test_nobody_listening_gives_a_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the call: nothing listens there
    m = AnthropicModel(api_key="k", base_url=f"http://127.0.0.1:{port}", max_retries=1, timeout=2)
    with pytest.raises(ModelUnavailableError, match="cannot reach"):
        asyncio.run(m.respond(request()))


def test_a_missing_api_key_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ModelRequestError, match="set ANTHROPIC_API_KEY"):
        AnthropicModel()


def test_scripted_model_answers_in_order_and_records_requests() -> None:
    scripted = ScriptedModel([text_response("one"), ModelUnavailableError("down"), text_response("two")])
    assert asyncio.run(scripted.respond(request())).text == "one"
    with pytest.raises(ModelUnavailableError):
        asyncio.run(scripted.respond(request()))
    assert asyncio.run(scripted.respond(request())).text == "two"
    with pytest.raises(ModelError, match="no response left"):
        asyncio.run(scripted.respond(request()))
    assert len(scripted.requests) == 4


def test_scripted_model_can_answer_from_a_function() -> None:
    echo = ScriptedModel(lambda req: text_response(str(req.messages[-1]["content"])))
    assert asyncio.run(echo.respond(request())).text == "今日のやることは？"


def test_streaming_hands_text_over_as_it_arrives(api: FakeMessagesAPI) -> None:
    api.reply(
        tool_use_response(
            ("toolu_9", "list_todos", {"day": "今日"}), text="確認しますね、少々お待ちください。"
        )
    )
    pieces: list[str] = []
    answer = asyncio.run(model(api).respond(request(), on_text=pieces.append))
    assert api.requests[0]["stream"] is True
    assert len(pieces) > 3 and "".join(pieces) == "確認しますね、少々お待ちください。"
    assert answer.text == "確認しますね、少々お待ちください。" and answer.stop_reason == "tool_use"
    assert answer.tool_uses == [
        {"type": "tool_use", "id": "toolu_9", "name": "list_todos", "input": {"day": "今日"}}
    ]


def test_scripted_model_hands_its_text_over_too() -> None:
    pieces: list[str] = []
    asyncio.run(ScriptedModel([text_response("はい")]).respond(request(), on_text=pieces.append))
    assert pieces == ["はい"]


def test_bedrock_without_a_region_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    with pytest.raises(ModelRequestError, match=r"cannot use Amazon Bedrock: .*region"):
        AnthropicModel(bedrock=True)
