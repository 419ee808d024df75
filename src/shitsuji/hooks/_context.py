"""The prompt hook's answer: the project's memories that bear on the prompt, or nothing.

Why keywords only: the hook is a fresh process per prompt. Loading the default embedding
model costs about a second before the first query vector (see ``bench hook``), which a
person would feel on every prompt; the keyword index answers from the rows alone. The
agent still has meaning-based search through the MCP ``recall`` tool.

Why a relevance cut: ranked search always returns its top k, so without one every prompt
("thanks!", "go on") would drag memories along. A memory is shown only when the passage
that matched shares at least two distinct keyword terms with the prompt (or every term of
a one-term prompt). Terms are stemmed words without stop words, and character bigrams for
Japanese, so "how do we run the tests?" keeps "run" and "test" and finds "tests run with
make test", while a chatty prompt shares nothing but stop words and gets nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from ..memory import Hit, MemoryEngine, terms

CANDIDATES: Final = 20
DEFAULT_K: Final = 5
DEFAULT_BUDGET: Final = 2000
MIN_SHARED_TERMS: Final = 2
EXCERPT_CHARS: Final = 500


def keyword_hits(engine: MemoryEngine, prompt: str, scope: str) -> list[Hit]:
    """Memories visible from ``scope`` that match the prompt's words, best first."""
    if not terms(prompt):
        return []
    return engine.recall(prompt, scope, k=CANDIDATES, semantic=False)


def is_relevant(hit: Hit, prompt: str) -> bool:
    """True when the matched passage shares enough distinct terms with the prompt (see module doc)."""
    query = set(terms(prompt))
    if not query:
        return False
    shared = query & set(terms(hit.excerpt))
    return len(shared) >= min(MIN_SHARED_TERMS, len(query))


def relevant_hits(engine: MemoryEngine, prompt: str, scope: str, *, k: int = DEFAULT_K) -> list[Hit]:
    return [h for h in keyword_hits(engine, prompt, scope) if is_relevant(h, prompt)][:k]


def format_context(hits: Sequence[Hit], scope: str, *, budget: int = DEFAULT_BUDGET) -> str:
    """Hits as a short block of text of at most ``budget`` characters; "" when there are none."""
    if not hits:
        return ""
    header = (
        f"Memories saved for this project ({scope}) that may bear on this prompt "
        "(shitsuji MCP tools: recall to search, read_memory for a full text):"
    )
    lines = [header]
    used = len(header)
    for hit in hits:
        m = hit.memory
        where = "" if m.scope == scope else f", from {m.scope}"
        tail = f" [id {m.id}, {m.category}{where}]"
        text = " ".join(hit.excerpt.split())
        if len(text) > EXCERPT_CHARS:
            text = text[: EXCERPT_CHARS - 1] + "…"
        room = budget - used - len(tail) - 3  # "\n- "
        if room < 40:
            break
        if len(text) > room:
            text = text[: room - 1] + "…"
        line = f"- {text}{tail}"
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if len(lines) > 1 else ""


def hook_output(context: str, event: str = "UserPromptSubmit") -> str:
    """The JSON both Claude Code and Codex read as added context; "" when there is nothing to add."""
    if not context:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(payload, ensure_ascii=False)
