"""Input tokens per turn with the window + summary versus sending the full history.

A LoCoMo dialogue is replayed as a chat: one speaker's lines are the person's messages,
the other's are the (scripted) butler's replies. Each turn's request is counted the way
the product counts tokens (``estimate_tokens``): the system prompt, the rolling summary
and the window — against the same system prompt plus every earlier message. The scripted
summarizer returns a bounded digest, standing in for the cheap model.
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from typing import Any

from ..agent import DEFAULT_MODES, system_blocks
from ..context import Summarizer, fit, message_tokens
from ..llm import Message, ModelRequest, ModelResponse, ScriptedModel, text_response
from ..llm._tokens import estimate_tokens
from .locomo import load, turns

WINDOW_BUDGET = DEFAULT_MODES["chat"].window_tokens
SUMMARY_CHARS = 600


def _digest(request: ModelRequest) -> ModelResponse:
    """A stand-in summarizer: the newest part of 'summary so far + new messages', bounded."""
    text = str(request.messages[-1]["content"]).replace("\n", " ")
    return text_response(text[-SUMMARY_CHARS:])


def replay(sample: dict[str, Any], *, turns_wanted: int, budget: int) -> dict[str, Any]:
    """One dialogue replayed as a chat: each turn's input with window + summary, and with the full history."""
    lines = turns(sample)
    person = lines[0]["speaker"]
    system_tokens = sum(estimate_tokens(b["text"]) for b in system_blocks(DEFAULT_MODES["chat"]))
    stand_in = ScriptedModel(_digest)
    summarizer = Summarizer(stand_in)
    history: list[Message] = []
    summary, offset = "", 0
    per_turn: list[int] = []
    full: list[int] = []

    async def run() -> None:
        nonlocal summary, offset
        for line in lines:
            role = "user" if line["speaker"] == person else "assistant"
            if history and history[-1]["role"] == role:  # same speaker twice: one message
                history[-1] = {"role": role, "content": f"{history[-1]['content']}\n{line['text']}"}
            else:
                history.append({"role": role, "content": line["text"]})
            if role != "user":
                continue
            folded = await fit(history[offset:], summary, budget_tokens=budget, summarizer=summarizer)
            offset += folded.folded + folded.dropped
            summary = folded.summary
            sent = system_tokens + estimate_tokens(summary) + sum(message_tokens(m) for m in folded.window)
            per_turn.append(sent)
            full.append(system_tokens + sum(message_tokens(m) for m in history))
            if len(per_turn) >= turns_wanted:
                return

    asyncio.run(run())
    last = len(per_turn)
    at20 = per_turn[min(19, last - 1)]
    early = statistics.median(per_turn[10:30] or per_turn)
    late = statistics.median(per_turn[-20:])
    return {
        "conversation": sample.get("sample_id"),
        "turns": last,
        "turn_20_tokens": at20,
        "turn_200_tokens": per_turn[-1] if last < 200 else per_turn[199],
        "full_history_last_turn_tokens": full[-1],
        "flatness": round(per_turn[-1] / at20, 3),
        "flatness_median": round(
            late / early, 3
        ),  # turns 181-200 against 11-30: the saw-tooth's phase left out
        "share_of_full_history": round(per_turn[-1] / full[-1], 4),
        "max_turn_tokens": max(per_turn),
        "max_share_of_full_history": round(max(per_turn) / full[-1], 4),
        "summarizer_calls": len(stand_in.requests),
    }


def run_context_bench(path: Path, *, turns_wanted: int = 200, budget: int = WINDOW_BUDGET) -> dict[str, Any]:
    """Every dialogue of the file replayed; the worst figures over them, and each one's."""
    each = [replay(sample, turns_wanted=turns_wanted, budget=budget) for sample in load(path)]
    return {
        "window_budget_tokens": budget,
        "conversations": len(each),
        "worst_share_of_full_history": max(r["share_of_full_history"] for r in each),
        "worst_max_share_of_full_history": max(r["max_share_of_full_history"] for r in each),
        "worst_flatness": max(r["flatness"] for r in each),
        "worst_flatness_median": max(r["flatness_median"] for r in each),
        "each": each,
    }
