"""Extraction precision: does the extractor keep the turns that state a lasting fact about the speaker?

The labelled sample is a handful of LoCoMo dev dialogue turns (conv-26 sessions 1–2,
conv-30 session 1), labelled by hand and kept here as turn ids only; the text is read
from the user's copy of the data set. A turn is labelled True when its speaker states a
lasting fact about themselves: identity, the people in their life, job, home, a habit
or hobby, a preference, a plan or goal they hold, or a past event in their life (losing
a job, winning a competition). It is False for greetings, thanks, questions, praise or
reactions to the other speaker, passing moods and one-off arrangements ("see you next
Friday").

Each turn goes through the real ``Extractor`` as one ``user`` turn (the turn before it
as the ``assistant`` turn, for context), into a fresh scope; a turn counts as predicted
True when at least one fact was stored from it. Offline, the model is
``rule_extractor``: a deterministic function model applying a simple, documented rule,
so the figures are a baseline that a real model run (same prompt, same sample) can be
compared with.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from ..llm import Model, ModelRequest, ModelResponse, ScriptedModel, text_response
from ..memory import HashEmbedder
from ..memory._extract import DEFAULT_THRESHOLD, EXTRACTION_PROMPT, Extractor, Turn, render_turns
from ._common import bench_engine
from .locomo import load, turns

# (sample_id, dia_id, states a lasting fact about the speaker)
LABELS: tuple[tuple[str, str, bool], ...] = tuple(
    (sample, dia, dia in positives)
    for sample, dias, positives in (
        (
            "conv-26",
            [f"D1:{i}" for i in range(1, 19)] + [f"D2:{i}" for i in range(1, 18)],
            {"D1:2", "D1:3", "D1:9", "D1:11", "D1:14", "D1:16"}
            | {"D2:1", "D2:5", "D2:7", "D2:8", "D2:10", "D2:12", "D2:14"},
        ),
        (
            "conv-30",
            [f"D1:{i}" for i in range(1, 29)],
            {"D1:2", "D1:3", "D1:4", "D1:6", "D1:7", "D1:8", "D1:9", "D1:16", "D1:17", "D1:19", "D1:24"},
        ),
    )
    for dia in dias
)

RULE = (
    "keep each declarative sentence (not ending in '?') of at least 6 words that speaks in the first "
    "person (I, I'm, I've, my, we) and does not open with an interjection or a reaction "
    "(hey, hi, thanks, wow, yeah, cool, sorry, sounds, that's, totally, …); importance 0.7 when it "
    "also says 'my', 'I've', 'I'm', 'I am' or 'I have', else 0.4"
)
_LINE = re.compile(r"^\[user (\S+)\] (.*)$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|my|we|we're|we've)\b", re.IGNORECASE)
_STRONG = re.compile(r"\b(my|i've|i'm|i am|i have)\b", re.IGNORECASE)
_REACTION = re.compile(
    r"^(hey|hi|hello|thanks|thank|wow|woah|yeah|yep|cool|sorry|sounds|that's|totally|no doubts|good|great|"
    r"awesome|oh|haha|congrats)\b",
    re.IGNORECASE,
)


def rule_facts(text: str) -> list[dict[str, Any]]:
    """What ``rule_extractor`` proposes for one user turn."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        words = sentence.split()
        if sentence.endswith("?") or len(words) < 6 or _REACTION.match(sentence):
            continue
        if not _FIRST_PERSON.search(sentence):
            continue
        importance = 0.7 if _STRONG.search(sentence) else 0.4
        out.append({"fact": f"The user said: {sentence}", "category": "misc", "importance": importance})
    return out


def _respond(request: ModelRequest) -> ModelResponse:
    content = request.messages[-1]["content"]
    found: list[dict[str, Any]] = []
    for line in str(content).splitlines():
        m = _LINE.match(line)
        if m:
            found += rule_facts(m.group(2))
    return text_response(json.dumps(found))


def rule_extractor() -> Model:
    """A deterministic stand-in for the extraction model (see ``RULE``)."""
    return ScriptedModel(_respond)


def run_extraction_check(
    locomo_path: Path,
    *,
    sample: int | None = None,
    model: Model | None = None,
    model_name: str = "claude-haiku-4-5",
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, Any]:
    """Precision and recall of extraction on the labelled LoCoMo turns (the first ``sample`` of them).

    ``model`` defaults to the offline ``rule_extractor``; pass a real model to compare.
    """
    by_id = {
        (record.get("sample_id", ""), turn["dia_id"]): (turn, previous)
        for record in load(Path(locomo_path))
        for previous, turn in _pairs(turns(record))
    }
    labelled = LABELS[:sample] if sample is not None else LABELS
    extractor_model = model or rule_extractor()
    tp = fp = fn = tn = 0
    false_positives, false_negatives, missing = [], [], []
    example = ""
    with bench_engine(HashEmbedder()) as engine:
        extractor = Extractor(extractor_model, engine, model_name=model_name, threshold=threshold)
        for sample_id, dia_id, truth in labelled:
            found = by_id.get((sample_id, dia_id))
            if found is None:
                missing.append(f"{sample_id}:{dia_id}")
                continue
            turn, previous = found
            batch = [Turn("user", turn["text"], dia_id)]
            if previous is not None:
                batch.insert(0, Turn("assistant", previous["text"], previous["dia_id"]))
            example = example or render_turns(batch, [])
            scope = f"bench/extraction/{sample_id}/{dia_id.replace(':', '-')}"
            report = asyncio.run(extractor.extract(batch, scope, {"conversation": sample_id}))
            predicted = bool(report.added or report.duplicates)
            key = f"{sample_id}:{dia_id}"
            if predicted and truth:
                tp += 1
            elif predicted:
                fp += 1
                false_positives.append(key)
            elif truth:
                fn += 1
                false_negatives.append(key)
            else:
                tn += 1
    return {
        "turns": tp + fp + fn + tn,
        "positives": tp + fn,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0,
        "threshold": threshold,
        "model": "rule_extractor (offline)" if model is None else model_name,
        "rule": RULE if model is None else None,
        "false_positives": false_positives,
        "false_negatives": false_negatives,
        "missing_turns": missing,
        "system_prompt": EXTRACTION_PROMPT,
        "example_user_message": example,
    }


def _pairs(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any] | None, dict[str, Any]]]:
    """Each turn with the one before it in the same session (None at a session's start)."""
    out: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []
    for i, turn in enumerate(items):
        before = items[i - 1] if i and items[i - 1]["session"] == turn["session"] else None
        out.append((before, turn))
    return out
