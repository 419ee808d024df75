"""Write tools go out strict (the API holds the model's arguments to the schema) in the subset the API takes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from shitsuji.household import butler_toolbox
from shitsuji.llm import AnthropicModel, ModelRequest, strict_schema, text_response

from .fake_anthropic import FakeMessagesAPI
from .fake_anthropic_rules import refusal

BOX = butler_toolbox(panels=True)


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


def test_write_tools_are_strict_and_read_tools_are_not() -> None:
    effects = {t.name: t.effect for t in BOX}
    for definition in BOX.definitions():
        assert definition.get("strict", False) is (effects[definition["name"]] == "write"), definition["name"]
    assert any(d.get("strict") for d in BOX.definitions())


def test_every_write_tool_schema_is_in_the_strict_subset_the_api_accepts(api: FakeMessagesAPI) -> None:
    tools = BOX.definitions()
    assert refusal({"model": "claude-sonnet-4-6", "tools": tools, "messages": []}) is None
    api.reply(text_response("はい"))
    request = ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": "牛乳を追加"}], tools=tools)
    asyncio.run(AnthropicModel(api_key="k", base_url=api.url, max_retries=0).respond(request))
    assert api.refused == [] and sum(bool(t.get("strict")) for t in api.requests[0]["tools"]) >= 5


def test_strict_schema_drops_what_strict_refuses_and_closes_every_object() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "amount": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
        },
    }
    loose = {"name": "t", "strict": True, "input_schema": schema}
    assert refusal({"model": "claude-sonnet-4-6", "tools": [loose]}) is not None  # the fake refuses it
    fixed = strict_schema(schema)
    assert refusal({"model": "claude-sonnet-4-6", "tools": [{**loose, "input_schema": fixed}]}) is None
    assert fixed["properties"]["name"] == {"type": "string"}
    assert fixed["properties"]["tags"]["items"]["additionalProperties"] is False
