"""Hooks for coding agents: memories added to each prompt, and the config that wires it up.

``answer_prompt`` is what ``shitsuji hook prompt`` (and the faster
``python -m shitsuji.hooks prompt``) runs for a ``UserPromptSubmit`` payload;
``plan`` computes what ``install-hooks`` would change in Claude Code's or Codex's config.
Nothing here imports the command line or the MCP SDK, so the hook starts quickly.
"""

from .._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~5 ms of CPU

if TYPE_CHECKING:
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
    from ._install import CLIENTS, Client, Commands, FileChange, codex_home, plan, summary
    from ._payload import PromptEvent, parse_payload
    from ._prompt import answer_prompt

# Everything loads on first use: ``python -m shitsuji.hooks prompt`` asks a running hook
# server before it imports numpy and the memory engine (``_quick``), and never needs
# install-hooks' planning.
_HOMES = {
    **dict.fromkeys(
        (
            "DEFAULT_BUDGET",
            "DEFAULT_K",
            "GATES",
            "Gate",
            "candidate_hits",
            "format_context",
            "hook_output",
            "is_relevant",
            "passes",
            "prompt_vector",
            "relevant_hits",
            "shared_terms",
        ),
        "._context",
    ),
    **dict.fromkeys(
        ("CLIENTS", "Client", "Commands", "FileChange", "codex_home", "plan", "summary"), "._install"
    ),
    "PromptEvent": "._payload",
    "parse_payload": "._payload",
    "answer_prompt": "._prompt",
}
__getattr__ = lazy_exports(__name__, _HOMES)


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
