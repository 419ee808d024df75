"""The Anthropic Messages shape, our lingua franca for talking to any model.

Content blocks stay plain JSON-compatible dicts (``{"type": "text", "text": …}``,
``{"type": "tool_use", "id", "name", "input"}``, ``tool_result``, server-tool and thinking
blocks), exactly as the Messages API sends them, so nothing is lost between a provider
and the loop. Requests and responses are small frozen dataclasses around them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Block = dict[str, Any]
Message = dict[str, Any]  # {"role": "user" | "assistant", "content": str | list[Block]}
StopReason = Literal["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence"]
STOP_REASONS: tuple[StopReason, ...] = (
    "end_turn",
    "tool_use",
    "max_tokens",
    "pause_turn",
    "refusal",
    "stop_sequence",
)


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call to a model. ``tools`` holds client tool definitions and server tools alike."""

    model: str
    messages: Sequence[Message]
    system: Sequence[Block] = ()
    tools: Sequence[Block] = ()
    max_tokens: int = 1024
    thinking_budget: int | None = None
    tool_choice: Block | None = None


@dataclass(frozen=True, slots=True)
class ModelResponse:
    content: list[Block]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        """The text blocks joined: what a person would read."""
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[Block]:
        """The client tool calls, in order (server tool blocks are the provider's business)."""
        return [b for b in self.content if b.get("type") == "tool_use"]


def text_response(text: str, *, stop_reason: StopReason = "end_turn") -> ModelResponse:
    return ModelResponse(content=[{"type": "text", "text": text}], stop_reason=stop_reason)


def tool_use_response(*calls: tuple[str, str, dict[str, Any]], text: str = "") -> ModelResponse:
    """A response calling tools: each call is (id, name, input)."""
    blocks: list[Block] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": cid, "name": name, "input": args} for cid, name, args in calls]
    return ModelResponse(content=blocks, stop_reason="tool_use")


def web_search_response(
    page_title: str,
    *calls: tuple[str, str, dict[str, Any]],
    text: str = "",
    url: str = "https://example.com/",
) -> ModelResponse:
    """A response that searched the web (a server tool) and found a page titled ``page_title``, then
    said ``text`` and/or called tools: outside text has entered the conversation."""
    blocks: list[Block] = [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": page_title[:40]},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": url,
                    "title": page_title,
                    "encrypted_content": "x",
                    "page_age": None,
                }
            ],
        },
    ]
    if text:
        blocks.append({"type": "text", "text": text})
    blocks += [{"type": "tool_use", "id": cid, "name": name, "input": args} for cid, name, args in calls]
    return ModelResponse(content=blocks, stop_reason="tool_use" if calls else "end_turn")
