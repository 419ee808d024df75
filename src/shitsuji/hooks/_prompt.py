"""``hook prompt`` end to end: payload in, context out, touching nothing but the database.

It recalls by words only (the embedding model is never loaded, see ``_context``) and never
creates a database: before the first memory is saved there is simply nothing to say.
"""

from __future__ import annotations

from pathlib import Path

from ..config import open_memory
from ..errors import UserInputError
from ..mcp import project_scope
from ._context import DEFAULT_BUDGET, DEFAULT_K, format_context, hook_output, relevant_hits
from ._payload import parse_payload

MIN_BUDGET = 200


def answer_prompt(
    payload: str,
    db: Path,
    *,
    embedder: str | None = None,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    plain: bool = False,
) -> str:
    """What the hook prints for this payload: hook JSON (or plain text), or "" when nothing is relevant."""
    if k < 1:
        raise UserInputError(f"k must be at least 1, got {k}")
    if budget < MIN_BUDGET:
        raise UserInputError(f"budget must be at least {MIN_BUDGET} characters, got {budget}")
    event = parse_payload(payload)
    if not db.exists():
        return ""
    scope = project_scope(event.cwd)
    engine = open_memory(db, embedder)
    try:
        hits = relevant_hits(engine, event.prompt, scope, k=k)
    finally:
        engine.store.close()
    context = format_context(hits, scope, budget=budget)
    return context if plain else hook_output(context, event.event)
