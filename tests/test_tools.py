"""Typed tools: schemas from hints, validation before any call, the context is never an argument."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Annotated

import pytest
from pydantic import Field

from shitsuji.agent import Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, tool

CTX = ToolContext(
    deps=None, user="wife", scope="household/futari/user/wife", channel="app", household="futari"
)
calls: list[tuple[str, object]] = []


@tool(effect="read")
def list_events(
    ctx: ToolContext,
    from_: Annotated[date | None, Field(alias="from", description="First day, ISO 8601.")] = None,
    to: Annotated[date | None, Field(description="Last day, ISO 8601.")] = None,
) -> list[dict[str, str]]:
    """List the household's events between two days."""
    calls.append((ctx.user, (from_, to)))
    return [{"title": "歯医者", "start": "2026-12-03T10:00"}]


@tool(effect="write", summary=lambda a: f"「{a['name']}」を買い物リストに追加")
async def add_shopping_item(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=100)],
    quantity: Annotated[int, Field(ge=1, le=99)] = 1,
) -> str:
    """Add an item to the shopping list."""
    calls.append((ctx.user, (name, quantity)))
    return f"added {name} x{quantity}"


def test_schema_comes_from_the_type_hints_and_uses_the_wire_names() -> None:
    definition = list_events.definition()
    assert definition["name"] == "list_events"
    assert definition["description"] == "List the household's events between two days."
    props = definition["input_schema"]["properties"]
    assert set(props) == {"from", "to"}  # `from` is a keyword in Python, not on the wire
    assert "ctx" not in props and "user" not in props
    assert add_shopping_item.definition()["input_schema"]["required"] == ["name"]


def test_arguments_are_validated_and_converted() -> None:
    assert list_events.validate({"from": "2026-12-01"}) == {"from": "2026-12-01", "to": None}
    assert add_shopping_item.validate({"name": "  牛乳 "}) == {"name": "牛乳", "quantity": 1}


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({}, "name: Field required"),
        ({"name": ""}, "name: String should have at least 1 character"),
        ({"name": "卵", "quantity": 0}, "quantity: Input should be greater than or equal to 1"),
        ({"name": "卵", "quantity": "many"}, "quantity"),
        ({"name": "卵", "user": "husband"}, "user: Extra inputs are not permitted"),
        (["卵"], "must be a JSON object"),
    ],
)
def test_bad_arguments_are_refused_before_any_call(raw: object, needle: str) -> None:
    calls.clear()
    with pytest.raises(ToolInputError, match=needle):
        asyncio.run(add_shopping_item.run(CTX, raw))  # type: ignore[arg-type]
    assert calls == []


def test_sync_and_async_tools_run_with_the_context() -> None:
    calls.clear()
    out = asyncio.run(add_shopping_item.run(CTX, {"name": "牛乳", "quantity": 2}))
    assert out == ToolOutput(content="added 牛乳 x2")
    listed = asyncio.run(list_events.run(CTX, {"from": "2026-12-01", "to": "2026-12-31"}))
    assert "歯医者" in str(listed.content)
    assert calls == [("wife", ("牛乳", 2)), ("wife", (date(2026, 12, 1), date(2026, 12, 31)))]


def test_summaries_for_confirmation_cards() -> None:
    assert add_shopping_item.summary({"name": "牛乳", "quantity": 1}) == "「牛乳」を買い物リストに追加"
    assert list_events.summary({"from": "2026-12-01", "to": None}) == "list_events(from=2026-12-01)"


def test_toolbox_lists_tools_in_a_stable_order_and_refuses_twins() -> None:
    box = Toolbox([list_events, add_shopping_item])
    assert [d["name"] for d in box.definitions()] == ["add_shopping_item", "list_events"]
    assert box.definitions() == Toolbox([add_shopping_item, list_events]).definitions()
    with pytest.raises(ValueError, match="two tools"):
        Toolbox([list_events, list_events])


def test_a_tool_must_take_the_context_first() -> None:
    def no_ctx(name: str) -> str:
        return name

    with pytest.raises(TypeError, match=r"first parameter must be `ctx: ToolContext\[...\]`"):
        tool(effect="read")(no_ctx)
    assert isinstance(list_events, Tool)


def test_definitions_are_compact() -> None:
    text = str(list_events.definition())
    assert "'title'" not in text and "anyOf" not in text and "additionalProperties" not in text
    assert list_events.definition()["input_schema"]["properties"]["from"] == {
        "description": "First day, ISO 8601.",
        "format": "date",
        "type": "string",
    }
