"""After a reply, off the reply path: queue the exchange for memory extraction.

Shared by every channel (terminal, web): the queue is durable, so the caller only
enqueues and lets a worker (``ExtractionQueue.run_due``) catch up.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ._loop import AnswerStep
from ._modes import router_model
from ._tools import ToolContext

if TYPE_CHECKING:
    from ..llm import Model
    from ..memory import ExtractionQueue, MemoryEngine


def env_set(name: str) -> frozenset[str]:
    """A comma-separated environment variable as a set."""
    return frozenset(part.strip() for part in os.environ.get(name, "").split(",") if part.strip())


def extraction_queue(path: str | Path, model: Model, memory: MemoryEngine) -> ExtractionQueue:
    """Facts about the speaker are extracted after each reply, unless switched off (env, see README)."""
    from ..memory import ExtractionQueue, ExtractionSettings, Extractor

    settings = ExtractionSettings(
        disabled_households=env_set("SHITSUJI_EXTRACTION_OFF_HOUSEHOLDS"),
        disabled_channels=env_set("SHITSUJI_EXTRACTION_OFF_CHANNELS"),
    )
    return ExtractionQueue(path, Extractor(model, memory, model_name=router_model()), settings=settings)


def enqueue_exchange(queue: ExtractionQueue, ctx: ToolContext, said: str, answer: AnswerStep) -> str | None:
    """Queue the last user message and the answer (message ids ``conversation:seq``) for extraction."""
    from ..memory import Turn

    conversation = ctx.conversation or ""
    last = len(answer.messages) - 1
    turns = [
        Turn("user", said, f"{conversation}:{_said_at(answer)}"),
        Turn("assistant", answer.text, f"{conversation}:{last}"),
    ]
    return queue.enqueue(
        turns,
        ctx.scope,
        conversation=conversation,
        segment=ctx.segment,
        household=ctx.household,
        channel=ctx.channel,
    )


def _said_at(answer: AnswerStep) -> int:
    """The index of the person's message: the last user message with words (tool results have none)."""
    for index in range(len(answer.messages) - 1, -1, -1):
        message = answer.messages[index]
        content = message["content"]
        if message["role"] == "user" and (
            isinstance(content, str) or any(b.get("type") == "text" for b in content)
        ):
            return index
    return max(len(answer.messages) - 2, 0)
