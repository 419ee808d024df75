"""What each Claude model accepts, as one table: the request is built from it, never from branches.

The Messages API changes under the same endpoint: Opus 4.7 refuses ``thinking: {"type": "enabled",
"budget_tokens": …}`` with HTTP 400 and takes only ``{"type": "adaptive"}`` with ``output_config.effort``;
Sonnet 4.6 and Opus 4.6 take both (the budget form is deprecated there); older models take only the
budget. Web search and fetch come in versions (``web_search_20260209`` filters results with code before
they enter the context) that only some models have. So each model family has one row here, matched by
the longest name prefix (``claude-sonnet-4-6`` matches ``claude-sonnet-4-6-20260101`` and Bedrock's
``anthropic.claude-sonnet-4-6``). A configuration file can override or add rows (``[models."prefix"]``).
A model no row matches gets the conservative row and one log line: no thinking, the oldest tool
versions, no strict tools — it may answer less well, but it is never refused for the shape.

Depth is what a mode asks for (none / fast / normal / deep); ``thinking_params`` turns it into what
this model accepts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from ..errors import UserInputError

log = logging.getLogger(__name__)

Depth = Literal["none", "fast", "normal", "deep"]
DEPTHS: tuple[Depth, ...] = ("none", "fast", "normal", "deep")
ThinkingForm = Literal["adaptive", "adaptive_only", "budget", "none"]
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MiB = 1024 * 1024

# depth -> effort wanted, and -> thinking budget on models that take only a budget
_EFFORT: dict[Depth, str] = {"none": "low", "fast": "low", "normal": "medium", "deep": "high"}
_BUDGET: dict[Depth, int] = {"none": 0, "fast": 1024, "normal": 4096, "deep": 16000}


@dataclass(frozen=True, slots=True)
class Capabilities:
    """One model family's row: what its requests may carry.

    ``thinking``: ``adaptive_only`` (budget refused, thinking always on: depth none is low effort),
    ``adaptive`` (adaptive + effort; budget deprecated), ``budget`` (``budget_tokens`` only) or ``none``
    (send no thinking: Haiku answers routing and small talk, where thinking only adds latency).
    Tool versions are listed newest first; the first one is sent, the rest are the fallbacks.
    """

    family: str
    thinking: ThinkingForm = "none"
    efforts: tuple[str, ...] = ()
    web_search: tuple[str, ...] = ("web_search_20250305",)
    web_fetch: tuple[str, ...] = ()
    strict_tools: bool = False
    memory_tool: bool = False
    context_editing: bool = False
    image_types: tuple[str, ...] = IMAGE_TYPES
    image_max_bytes: int = 5 * MiB
    image_max_side: int = 8000
    cache_min_tokens: int = 1024  # a shorter prefix is not cached (no error: both cache counters stay 0)
    known: bool = True

    def effort_for(self, depth: Depth) -> str | None:
        """The effort level for ``depth``, or the nearest lower one the model has (None: no effort param)."""
        if not self.efforts:
            return None
        wanted = _EFFORT[depth]
        order = ("low", "medium", "high", "xhigh", "max")
        for level in reversed(order[: order.index(wanted) + 1]):
            if level in self.efforts:
                return level
        return self.efforts[0]


_NEW_WEB = ("web_search_20260209", "web_search_20250305")
_NEW_FETCH = ("web_fetch_20260209", "web_fetch_20250910")
_OLD_FETCH = ("web_fetch_20250910",)
_FULL: dict[str, Any] = {"strict_tools": True, "memory_tool": True, "context_editing": True}
_NEW_ADAPTIVE: dict[str, Any] = {
    "thinking": "adaptive",
    "efforts": ("low", "medium", "high", "max"),
    "web_search": _NEW_WEB,
    "web_fetch": _NEW_FETCH,
    **_FULL,
}

DEFAULT_CAPABILITIES: Mapping[str, Capabilities] = {
    "claude-opus-4-7": Capabilities(
        "opus-4.7",
        cache_min_tokens=2048,
        thinking="adaptive_only",
        efforts=("low", "medium", "high", "xhigh", "max"),
        web_search=_NEW_WEB,
        web_fetch=_NEW_FETCH,
        **_FULL,
    ),
    "claude-opus-4-6": Capabilities("opus-4.6", cache_min_tokens=4096, **_NEW_ADAPTIVE),
    "claude-sonnet-4-6": Capabilities("sonnet-4.6", **_NEW_ADAPTIVE),
    "claude-opus-4-5": Capabilities(
        "opus-4.5",
        thinking="budget",
        efforts=("low", "medium", "high"),
        web_fetch=_OLD_FETCH,
        cache_min_tokens=4096,
        **_FULL,
    ),
    "claude-sonnet-4-5": Capabilities("sonnet-4.5", thinking="budget", web_fetch=_OLD_FETCH, **_FULL),
    # Haiku 4.5 would take a budget; the butler gives it none (routing, small talk, summaries)
    "claude-haiku-4-5": Capabilities(
        "haiku-4.5", thinking="none", web_fetch=_OLD_FETCH, cache_min_tokens=4096, **_FULL
    ),
}
CONSERVATIVE = Capabilities("unknown", known=False)


@dataclass(frozen=True)
class CapabilityTable:
    """Rows by model-name prefix; ``for_model`` finds the longest prefix that matches."""

    rows: Mapping[str, Capabilities] = field(default_factory=lambda: dict(DEFAULT_CAPABILITIES))
    _warned: set[str] = field(default_factory=set, compare=False, repr=False)

    def for_model(self, model: str) -> Capabilities:
        name = model.lower()
        matches = [prefix for prefix in self.rows if prefix in name]
        if matches:
            return self.rows[max(matches, key=len)]
        if model not in self._warned:  # once per model name, not once per request
            self._warned.add(model)
            log.warning(
                "model %r is not in the capability table: sending the conservative request "
                "(no thinking, web_search_20250305, no strict tools); add a [models.%r] row to the "
                "configuration to use more",
                model,
                model,
            )
        return CONSERVATIVE

    def overridden(self, tables: Mapping[str, Any], *, where: str = "configuration") -> CapabilityTable:
        """This table with ``[models."prefix"]`` rows from a configuration file over it (new prefixes add rows)."""
        rows = dict(self.rows)
        known = {f.name for f in fields(Capabilities)} - {"known"}
        for prefix, table in tables.items():
            if not isinstance(table, dict) or set(table) - known:
                raise UserInputError(f"{where}: [models.{prefix!r}] may only set {', '.join(sorted(known))}")
            base = rows.get(prefix, replace(CONSERVATIVE, family=prefix, known=True))
            values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
            row = replace(base, **values)
            _check(row, prefix, where)
            rows[prefix] = row
        return CapabilityTable(rows)


def _check(row: Capabilities, prefix: str, where: str) -> None:
    if row.thinking not in ("adaptive", "adaptive_only", "budget", "none"):
        raise UserInputError(
            f"{where}: [models.{prefix!r}] thinking must be adaptive, adaptive_only, budget or none"
        )
    bad = set(row.efforts) - {"low", "medium", "high", "xhigh", "max"}
    if bad:
        raise UserInputError(f"{where}: [models.{prefix!r}] unknown effort levels {sorted(bad)}")


def thinking_params(caps: Capabilities, depth: Depth, max_tokens: int) -> dict[str, Any]:
    """The ``thinking`` / ``output_config`` / ``max_tokens`` a request at ``depth`` carries on this model.

    A budget must stay below ``max_tokens``, so the budget is added on top of the answer's room.
    """
    if caps.thinking in ("adaptive", "adaptive_only"):
        if depth == "none" and caps.thinking == "adaptive":
            return {}  # thinking stays off where the model lets it
        params: dict[str, Any] = {"thinking": {"type": "adaptive"}}
        effort = caps.effort_for(depth)
        if effort is not None:
            params["output_config"] = {"effort": effort}
        return params
    if caps.thinking == "budget" and depth != "none":
        budget = _BUDGET[depth]
        return {
            "thinking": {"type": "enabled", "budget_tokens": budget},
            "max_tokens": max_tokens + budget,
        }
    return {}


def newest(versions: Iterable[str], skip: Iterable[str] = ()) -> str | None:
    """The first version not in ``skip`` (versions the API refused already), or None."""
    refused = set(skip)
    return next((v for v in versions if v not in refused), None)
