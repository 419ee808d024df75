"""A ``ModelRequest`` as the Messages API wants it for one model, from the capability table.

Everything that differs between models is decided here: the thinking form (adaptive + effort, a
budget, or nothing), which web search / fetch version to send (newest the model has, skipping any the
API already refused), whether client tools keep ``strict: true``, the cache lifetime of the prefix, and
context editing. The loop only says what it wants (a depth, web tools, a TTL).

Caching is by prefix, in the order tools → system → messages. The system blocks up to the last one
marked ``cache_control`` (tools + persona) are the static prefix; the system blocks after it (count
index, memories, summary, mode hint) change every turn, so in a chat turn they travel at the head of
this turn's first message instead: then the conversation before the turn is the same bytes as last
turn and is read from the cache too. Two more breakpoints mark the end of the earlier conversation and,
in a tool round, the end of the request (the next round reads it): three of the four allowed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ._capabilities import Capabilities, newest, thinking_params
from ._types import Block, Message, ModelRequest, WebTools

CONTEXT_EDITING_BETA = "context-management-2025-06-27"


def request_params(
    request: ModelRequest, caps: Capabilities, *, refused: Collection[str] = ()
) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` / ``messages.stream``.

    ``refused``: tool versions the API said this model lacks (the next older version is sent instead).
    """
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
    }
    system, messages = _cache_layout(request)
    params["messages"] = messages
    if system:
        params["system"] = system
    tools = [_client_tool(t, caps) for t in request.tools] + web_tools(request.web, caps, refused)
    if tools:
        params["tools"] = tools
    if request.tool_choice is not None:
        params["tool_choice"] = request.tool_choice
    params.update(thinking_params(caps, request.depth, request.max_tokens))
    if request.clear_tool_uses and caps.context_editing:
        # not in the SDK's non-beta signature yet: the same JSON through extra_body plus the beta header
        params["extra_body"] = {"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}}
        params["extra_headers"] = {"anthropic-beta": CONTEXT_EDITING_BETA}
    return params


def web_tools(web: WebTools, caps: Capabilities, refused: Collection[str] = ()) -> list[Block]:
    """The server tool definitions for ``web``, each the newest version this model has."""
    out: list[Block] = []
    for wanted, versions, name in (
        (web.search, caps.web_search, "web_search"),
        (web.fetch, caps.web_fetch, "web_fetch"),
    ):
        version = newest(versions, refused) if wanted else None
        if version is None:
            continue
        tool: Block = {"type": version, "name": name, "max_uses": web.max_uses}
        if web.allowed_domains:
            tool["allowed_domains"] = list(web.allowed_domains)
        elif web.blocked_domains:
            tool["blocked_domains"] = list(web.blocked_domains)
        if name == "web_search" and web.user_location:
            tool["user_location"] = {"type": "approximate", **dict(web.user_location)}
        out.append(tool)
    return out


def _client_tool(tool: Block, caps: Capabilities) -> Block:
    if "strict" in tool and not caps.strict_tools:
        return {k: v for k, v in tool.items() if k != "strict"}
    return tool


def _cache_layout(request: ModelRequest) -> tuple[list[Block], list[Message]]:
    """System blocks and messages with the breakpoints placed (see the module docstring)."""
    mark: Block = {"type": "ephemeral"}
    if request.cache_ttl != "5m":  # 5 minutes is the API's default
        mark["ttl"] = request.cache_ttl
    system = [{**b, "cache_control": mark} if "cache_control" in b else b for b in request.system]
    messages = list(request.messages)
    start = request.turn_start
    static = max((i + 1 for i, b in enumerate(system) if "cache_control" in b), default=0)
    if start is None or not 0 <= start < len(messages) or not static:
        return system, messages
    system, per_turn = system[:static], system[static:]
    messages[start] = {**messages[start], "content": per_turn + _blocks(messages[start]["content"])}
    if start > 0:
        messages[start - 1] = _marked(messages[start - 1], mark)
    if len(messages) - 1 > start:
        messages[-1] = _marked(messages[-1], mark)
    return system, messages


def _blocks(content: str | list[Block]) -> list[Block]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _marked(message: Message, mark: Block) -> Message:
    """The message with a cache breakpoint on its last block (thinking blocks cannot carry one)."""
    blocks = _blocks(message["content"])
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].get("type") not in ("thinking", "redacted_thinking"):
            blocks[i] = {**blocks[i], "cache_control": mark}
            break
    return {**message, "content": blocks}
