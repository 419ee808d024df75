"""OpenAI-compatible servers: the real openai SDK against a local fake, translation both ways."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from shitsuji.errors import ModelRequestError, ModelUnavailableError
from shitsuji.llm import ModelRequest, OpenAICompatibleModel

from .fake_anthropic import FakeMessagesAPI

TOOL = {
    "name": "list_todos",
    "description": "List to-dos.",
    "input_schema": {"type": "object", "properties": {}},
}


def completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "llama-test",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
    }


def test_tool_use_round_trip_through_the_translation() -> None:
    history = [
        {"role": "user", "content": "やることは？"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "確認します"},
                {"type": "tool_use", "id": "c1", "name": "list_todos", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "ゴミ出し"},
                {"type": "text", "text": "ほかには？"},
            ],
        },
    ]
    with FakeMessagesAPI("/v1/chat/completions").running() as api:
        api.reply_raw(
            completion(
                {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "list_todos", "arguments": "{}"},
                        }
                    ],
                },
                "tool_calls",
            )
        )
        api.reply_raw(completion({"content": "以上です"}, "stop"))
        model = OpenAICompatibleModel(base_url=api.url + "/v1")
        request = ModelRequest(
            model="llama-test",
            system=[{"type": "text", "text": "butler"}],
            messages=history,
            tools=[TOOL, {"type": "web_search_20250305", "name": "web_search"}],
        )
        first = asyncio.run(model.respond(request))
        second = asyncio.run(model.respond(request))
    assert first.stop_reason == "tool_use"
    assert first.tool_uses == [{"type": "tool_use", "id": "c2", "name": "list_todos", "input": {}}]
    assert second.text == "以上です" and second.stop_reason == "end_turn" and second.usage.input_tokens == 50
    sent = api.requests[0]
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert sent["messages"][2]["tool_calls"][0]["function"] == {"name": "list_todos", "arguments": "{}"}
    assert sent["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "ゴミ出し"}
    assert [t["function"]["name"] for t in sent["tools"]] == ["list_todos"]  # the server tool is left out


def test_malformed_tool_arguments_reach_the_loop_as_a_string() -> None:
    with FakeMessagesAPI("/v1/chat/completions").running() as api:
        api.reply_raw(
            completion(
                {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "add", "arguments": "{name: 牛乳"},
                        }
                    ],
                },
                "tool_calls",
            )
        )
        response = asyncio.run(
            OpenAICompatibleModel(base_url=api.url + "/v1").respond(
                ModelRequest(model="m", messages=[{"role": "user", "content": "x"}])
            )
        )
    assert response.tool_uses[0]["input"] == "{name: 牛乳"
    json.dumps(response.content)  # still JSON-serialisable for storage


def test_errors_are_clear() -> None:
    with FakeMessagesAPI("/v1/chat/completions").running() as api:
        api.fail(503, "server_error", "loading model", times=2)
        with pytest.raises(ModelUnavailableError, match="HTTP 503 after 2 tries"):
            asyncio.run(
                OpenAICompatibleModel(base_url=api.url + "/v1", max_retries=1).respond(
                    ModelRequest(model="m", messages=[{"role": "user", "content": "x"}])
                )
            )
        api.fail(400, "invalid_request_error", "model 'nope' not found")
        with pytest.raises(ModelRequestError, match="not found"):
            asyncio.run(
                OpenAICompatibleModel(base_url=api.url + "/v1").respond(
                    ModelRequest(model="nope", messages=[{"role": "user", "content": "x"}])
                )
            )


def test_a_missing_url_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHITSUJI_MODEL_URL", raising=False)
    with pytest.raises(ModelRequestError, match="SHITSUJI_MODEL_URL"):
        OpenAICompatibleModel()
