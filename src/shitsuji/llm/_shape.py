"""A ``ModelRequest`` as the Messages API wants it for one model, from the capability table.

Everything that differs between models is decided here: the thinking form (adaptive + effort, a
budget, or nothing), which web search / fetch version to send (newest the model has, skipping any the
API already refused), whether client tools keep ``strict: true``, the cache lifetime of the prefix, and
context editing. The loop only says what it wants (a depth, web tools, a TTL).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ._capabilities import Capabilities, newest, thinking_params
from ._types import Block, ModelRequest, WebTools

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
        "messages": list(request.messages),
    }
    if request.system:
        params["system"] = _with_ttl(request.system, request.cache_ttl)
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


def _with_ttl(system: Any, ttl: str) -> list[Block]:
    """System blocks with the cache lifetime set on each breakpoint (5 minutes is the API's default)."""
    if ttl == "5m":
        return list(system)
    return [
        {**b, "cache_control": {**b["cache_control"], "ttl": ttl}} if "cache_control" in b else b
        for b in system
    ]
