"""Hooks for coding agents: memories added to each prompt, and the config that wires it up.

``answer_prompt`` is what ``shitsuji hook prompt`` (and the faster
``python -m shitsuji.hooks prompt``) runs for a ``UserPromptSubmit`` payload;
``plan`` computes what ``install-hooks`` would change in Claude Code's or Codex's config.
Nothing here imports the command line or the MCP SDK, so the hook starts quickly.
"""

from typing import TYPE_CHECKING, Any

from ._context import (
    DEFAULT_BUDGET,
    DEFAULT_K,
    GATES,
    Gate,
    candidate_hits,
    format_context,
    hook_output,
    is_relevant,
    passes,
    prompt_vector,
    relevant_hits,
    shared_terms,
)
from ._payload import PromptEvent, parse_payload
from ._prompt import answer_prompt

if TYPE_CHECKING:
    from ._install import CLIENTS, Client, Commands, FileChange, codex_home, plan, summary

# install-hooks' planning is loaded on first use: the prompt hook never needs it
_LAZY = frozenset({"CLIENTS", "Client", "Commands", "FileChange", "codex_home", "plan", "summary"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import _install

        return getattr(_install, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CLIENTS",
    "DEFAULT_BUDGET",
    "DEFAULT_K",
    "GATES",
    "Client",
    "Commands",
    "FileChange",
    "Gate",
    "PromptEvent",
    "answer_prompt",
    "candidate_hits",
    "codex_home",
    "format_context",
    "hook_output",
    "is_relevant",
    "parse_payload",
    "passes",
    "plan",
    "prompt_vector",
    "relevant_hits",
    "shared_terms",
    "summary",
]
