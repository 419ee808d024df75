"""What of a conversation is sent each turn: a rolling summary plus the recent window.

The window is the newest messages that fit a token budget. It is cut only where a new
user turn starts — never between an assistant's ``tool_use`` and the user message with
its ``tool_result`` — so the Messages API always receives whole exchanges. Everything
older is folded into the summary by a cheap model; if that fails, the older messages are
simply left out of this request (they stay stored) and the conversation goes on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ModelError
from ..llm import Message, Model, ModelRequest
from ..llm._tokens import estimate_tokens

log = logging.getLogger(__name__)

SUMMARY_PROMPT = """\
You keep the running summary of a conversation between a person and their household butler.
Fold the new messages into the summary. Keep: what the person wants, decisions made, open
questions, preferences they stated, and anything promised. Drop greetings and small talk.
Write plain sentences in the conversation's language, at most {words} words. Reply with the
summary only."""


def message_tokens(message: Message) -> int:
    content = message["content"]
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return estimate_tokens(text) + 4


def _starts_turn(message: Message) -> bool:
    """A user message that is not (only) tool results: a safe place to cut."""
    if message["role"] != "user":
        return False
    content = message["content"]
    return isinstance(content, str) or not any(b.get("type") == "tool_result" for b in content)


def split_window(messages: Sequence[Message], budget_tokens: int) -> tuple[list[Message], list[Message]]:
    """(older messages to fold away, the window to send). The newest turn is always kept whole."""
    cut = len(messages)
    used = 0
    for i in range(len(messages) - 1, -1, -1):
        used += message_tokens(messages[i])
        if _starts_turn(messages[i]):
            if used > budget_tokens and cut < len(messages):
                break
            cut = i
    return list(messages[:cut]), list(messages[cut:])


@dataclass(frozen=True, slots=True)
class Folded:
    summary: str
    window: list[Message]
    folded: int  # messages newly folded into the summary
    dropped: int  # messages left out because summarising failed


class Summarizer:
    """Folds old messages into the running summary with a cheap model."""

    def __init__(self, model: Model, *, model_name: str = "claude-haiku-4-5", words: int = 150) -> None:
        self.model = model
        self.model_name = model_name
        self.words = words

    async def fold(self, summary: str, older: Sequence[Message]) -> str:
        transcript = "\n".join(f"{m['role']}: {_plain(m)}" for m in older)
        request = ModelRequest(
            model=self.model_name,
            system=[{"type": "text", "text": SUMMARY_PROMPT.format(words=self.words)}],
            messages=[
                {
                    "role": "user",
                    "content": f"Summary so far:\n{summary or '(none)'}\n\nNew messages:\n{transcript}",
                }
            ],
            max_tokens=self.words * 3,
        )
        text = (await self.model.respond(request)).text.strip()
        if not text:
            raise ModelError("the summarizer returned nothing")
        return text


#: After an overflow the window is folded down to this share of its budget (the saw-tooth's depth). A
#: fold moves the start of the window, so the turn that folds reads only tools + persona from the prompt
#: cache and writes the rest anew: folding down to half (not 80 %) folds about a third as often, and
#: the turn that folds sends a shorter window (measured in docs/benchmarks.md, "Prompt caching per turn").
REFILL = 0.5


async def fit(
    messages: Sequence[Message],
    summary: str,
    *,
    budget_tokens: int,
    summarizer: Summarizer | None,
    refill: float = REFILL,
) -> Folded:
    """Keep the newest messages within budget; fold the rest into ``summary`` (or drop them on failure).

    Nothing happens while everything fits. On overflow the window is cut to ``refill`` of the
    budget, so the cheap model runs every few turns, not on every turn, and the input per turn
    stays between ``refill`` and all of the budget over the whole conversation.
    """
    if sum(message_tokens(m) for m in messages) <= budget_tokens:
        return Folded(summary, list(messages), 0, 0)
    older, window = split_window(messages, int(budget_tokens * refill))
    if not older:
        return Folded(summary, window, 0, 0)
    if summarizer is not None:
        try:
            return Folded(await summarizer.fold(summary, older), window, len(older), 0)
        except ModelError as exc:
            log.warning(
                "summarising %d messages failed; leaving them out of this request: %s", len(older), exc
            )
    return Folded(summary, window, 0, len(older))


def _plain(message: Message) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(block["text"])
        elif kind == "tool_use":
            parts.append(f"[called {block['name']} {json.dumps(block.get('input', {}), ensure_ascii=False)}]")
        elif kind == "tool_result":
            result = block.get("content", "")
            parts.append(
                f"[result: {result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)}]"
            )
    return " ".join(parts)
