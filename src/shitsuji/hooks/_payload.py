"""What a coding agent's prompt hook hands us on stdin, read leniently.

Claude Code's ``UserPromptSubmit`` payload and Codex's share the fields we need::

    {"session_id": "…", "transcript_path": "…", "cwd": "/home/u/projects/app",
     "hook_event_name": "UserPromptSubmit", "prompt": "…"}

Codex adds ``model`` and ``turn_id``; early Codex builds nested the text as
``event.user_prompt``. Unknown fields are ignored, so new client versions keep working.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from ..errors import UserInputError


@dataclass(frozen=True, slots=True)
class PromptEvent:
    """The user's prompt and the directory the agent works in."""

    prompt: str
    cwd: str
    event: str = "UserPromptSubmit"


def parse_payload(text: str, cwd: str | None = None) -> PromptEvent:
    """Read a hook payload; a missing ``cwd`` means the hook's own working directory (``cwd``: the
    hook process's, when a hook server reads the payload for it)."""
    try:
        data: Any = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as exc:
        raise UserInputError(
            f"the hook payload on stdin is not JSON ({exc.msg} at line {exc.lineno})"
        ) from exc
    if not isinstance(data, dict):
        raise UserInputError(
            'the hook payload on stdin must be a JSON object with "prompt" and "cwd" '
            "(as Claude Code and Codex send for UserPromptSubmit)"
        )
    prompt = _text(data.get("prompt"))
    nested = data.get("event")
    if prompt is None and isinstance(nested, dict):
        prompt = _text(nested.get("user_prompt"))
    if prompt is None:
        raise UserInputError('the hook payload has no "prompt" text')
    where = _text(data.get("cwd")) or cwd or os.getcwd()
    return PromptEvent(
        prompt=prompt, cwd=where, event=_text(data.get("hook_event_name")) or "UserPromptSubmit"
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
