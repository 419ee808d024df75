"""Calibrating our token estimate against what the provider actually counted.

Every response reports the request's input tokens (cache reads and writes included), so
the ratio between that count and our estimate of the same request is free to learn. The
window budget is divided by it: if Claude counts 1.3 tokens for each one we estimate, the
window holds 1/1.3 of the estimated tokens. Without a provider count (scripted models,
servers that report nothing) the ratio stays 1.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..llm import Block, Message, Usage
from ..llm._tokens import estimate_tokens
from ._window import message_tokens

SMOOTHING = 0.3
LOWEST, HIGHEST = 0.5, 3.0


def request_estimate(system: Sequence[Block], messages: Sequence[Message], tools_tokens: int) -> int:
    """Our estimate of a request: its system blocks, its messages and ``tools_tokens`` (``tools_estimate``
    of its tools' definitions, the same every request: a caller estimates them once)."""
    text = sum(estimate_tokens(b.get("text", "")) for b in system)
    return text + sum(message_tokens(m) for m in messages) + tools_tokens


def tools_estimate(tools: Sequence[Block]) -> int:
    """Our estimate of the tools' definitions as a request carries them."""
    return estimate_tokens(json.dumps(list(tools), ensure_ascii=False))


@dataclass
class Calibration:
    ratio: float = 1.0
    samples: int = 0

    def observe(self, usage: Usage, estimated: int) -> None:
        counted = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
        if counted <= 0 or estimated <= 0:
            return
        seen = min(max(counted / estimated, LOWEST), HIGHEST)
        self.ratio = seen if self.samples == 0 else (1 - SMOOTHING) * self.ratio + SMOOTHING * seen
        self.samples += 1

    def budget(self, tokens: int) -> int:
        """A provider-token budget expressed in our estimate's units."""
        return max(int(tokens / self.ratio), 1)
