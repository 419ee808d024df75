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

from ._capabilities import Depth

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

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    @property
    def total_input(self) -> int:
        """Every input token of the request: uncached, written to the cache and read from it."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


CacheTTL = Literal["5m", "1h"]


@dataclass(frozen=True, slots=True)
class WebTools:
    """The server-side web tools a request may use; the adapter picks the versions the model has.

    ``allowed_domains`` and ``blocked_domains`` cannot both be set (the API refuses it);
    ``user_location`` is the API's approximate location (``city``, ``region``, ``country``, ``timezone``).
    """

    search: bool = False
    fetch: bool = False
    max_uses: int = 3
    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()
    user_location: tuple[tuple[str, str], ...] = ()

    @property
    def any(self) -> bool:
        return self.search or self.fetch


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call to a model. ``tools`` holds client tool definitions (and any server tools given as is);
    ``web`` asks for web search / fetch, ``depth`` for thinking, each shaped per model by the adapter.
    ``cache_ttl`` is the lifetime of the cached prefix (``cache_control`` blocks); ``clear_tool_uses``
    lets the API clear old tool results from long tool-heavy turns (context editing) where the model can.
    ``turn_start`` marks where this turn's messages begin, so the conversation before it can be cached."""

    model: str
    messages: Sequence[Message]
    system: Sequence[Block] = ()
    tools: Sequence[Block] = ()
    max_tokens: int = 1024
    depth: Depth = "none"
    tool_choice: Block | None = None
    web: WebTools = field(default_factory=WebTools)
    cache_ttl: CacheTTL = "5m"
    clear_tool_uses: bool = False
    turn_start: int | None = None  # index of this turn's first message (the person's words), if a chat turn


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
