"""Does the prompt hook inject the right memory, and nothing for prompts that need none?

The labelled set (``data/hook_relevance.json``, written for this project) holds a coding
project's memories — plus notes on a parent folder, and 300 synthetic distractors — and
prompts in Japanese and English: some need one memory (asked in other words, or in the
other language), the rest must get nothing (small talk, unrelated requests). Each prompt
goes through the hook's own ranking (``candidate_hits``) once; the gate is then applied
with the shipped thresholds, and a grid of thresholds is searched to calibrate them.

So that a threshold is not judged on the prompts it was tuned on, the set is split in two
folds (alternate prompts of each kind): thresholds tuned on one fold are scored on the
other, and the report gives those held-out figures beside the figures on the whole set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..hooks import DEFAULT_K, GATES, Gate, candidate_hits, passes, prompt_vector, shared_terms
from ..hooks._chatter import chatter_similarity
from ..hooks._context import prompt_terms
from ..memory import MemoryEngine, NewMemory
from ._common import bench_engine
from .latency import synthetic_memories

PROJECT = "fs/home/u/projects/acme"
PARENT = "fs/home/u"
DISTRACTORS = 300
MAX_NOISE = 0.05
GRID = [round(0.20 + 0.025 * i, 3) for i in range(21)]  # 0.20 … 0.70
CHATTER_GRID = [0.5, 0.6, 0.7, 0.8, 1.01]  # 1.01: no chatter check

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Scored:
    """One candidate, reduced to what the gate looks at."""

    label: str
    cosine: float | None
    shared: int


@dataclass(frozen=True, slots=True)
class Case:
    prompt: str
    expect: frozenset[str]  # memory ids (our labels); empty: nothing should be injected
    hits: list[Scored]
    prompt_terms: int
    chatter: float = 0.0  # the prompt's similarity to conversation chatter (``hooks._chatter``)


def load_set() -> dict[str, Any]:
    text = resources.files("shitsuji.bench").joinpath("data/hook_relevance.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def score(cases: Sequence[Case], gate: Gate | None, k: int = DEFAULT_K) -> dict[str, float]:
    """right: share of needing prompts given their memory; noise: share of the others given anything.

    ``gate=None`` scores the keyword fallback (cases ranked by words alone).
    """
    need = [c for c in cases if c.expect]
    none = [c for c in cases if not c.expect]
    right = wrong_only = 0
    for case in need:
        shown = {h.label for h in _gated(case, gate)[:k]}
        right += bool(shown & case.expect)
        wrong_only += bool(shown) and not shown & case.expect
    noise = sum(bool(_gated(case, gate)) for case in none)
    return {
        "right": round(right / max(len(need), 1), 3),
        "noise": round(noise / max(len(none), 1), 3),
        "wrong_only": round(wrong_only / max(len(need), 1), 3),
        "need": len(need),
        "none": len(none),
    }


def _gated(case: Case, gate: Gate | None) -> list[Scored]:
    if gate is not None and case.chatter >= gate.chatter:
        return []
    return [
        h
        for h in case.hits
        if (gate is None or h.cosine is not None) and passes(gate, h.cosine, h.shared, case.prompt_terms)
    ]


def calibrate(cases: Sequence[Case]) -> Gate:
    """The gate with the most right answers at noise ≤ MAX_NOISE (ties: the stricter gate)."""
    best: tuple[float, float, float, float, Gate] | None = None
    for meaning in GRID:
        for with_words in (g for g in GRID if g <= meaning):
            for chatter in CHATTER_GRID:
                gate = Gate(meaning=meaning, meaning_with_words=with_words, chatter=chatter)
                result = score(cases, gate)
                if result["noise"] > MAX_NOISE:
                    continue
                key = (result["right"], meaning, with_words, -chatter)  # ties: the stricter gate
                if best is None or key > best[:4]:
                    best = (*key, gate)
    return best[4] if best else Gate(meaning=1.0, meaning_with_words=1.0, chatter=0.0)


def run_hook_relevance(*, embedder: str, progress: Progress | None = None) -> dict[str, Any]:
    data = load_set()
    scopes = {"project": PROJECT, "parent": PARENT}
    with bench_engine(embedder) as engine:
        engine.add_many(
            NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]})
            for m in data["memories"]
        )
        engine.add_many(
            NewMemory(content=text, scope=PROJECT, provenance={"label": f"distractor-{i}"})
            for i, text in enumerate(synthetic_memories(DISTRACTORS, seed=3))
        )
        engine.index_pending()
        if progress:
            progress(f"ranking {len(data['prompts'])} prompts")
        cases = [_case(engine, p["prompt"], p["expect"], semantic=True) for p in data["prompts"]]
        by_words = [_case(engine, p["prompt"], p["expect"], semantic=False) for p in data["prompts"]]
        model = engine.embedder.model_id
    shipped = GATES.get(model)
    folds = [_fold(cases, 0), _fold(cases, 1)]
    held_out = []
    for i, fold in enumerate(folds):
        tuned = calibrate(fold)
        held_out.append({"tuned": _gate_json(tuned), "scored_on_other_fold": score(folds[1 - i], tuned)})
    return {
        "embedder": embedder,
        "model": model,
        "memories": len(data["memories"]),
        "distractors": DISTRACTORS,
        "shipped_gate": _gate_json(shipped) if shipped else None,
        "shipped": score(cases, shipped) if shipped else None,
        "calibrated_on_all": _gate_json(calibrate(cases)),
        "words_only": score(by_words, None),
        "two_fold": held_out,
    }


def _case(engine: MemoryEngine, prompt: str, expect: Sequence[str], *, semantic: bool) -> Case:
    """The prompt ranked as the hook ranks it (by meaning, or by words alone), reduced to gate inputs."""
    vector = prompt_vector(engine, prompt) if semantic else None
    hits = [
        Scored(h.memory.provenance["label"], h.signals.get("vector"), shared_terms(h, prompt))
        for h in candidate_hits(engine, prompt, PROJECT, vector)
    ]
    chatter = chatter_similarity(engine.embedder, vector) if vector is not None else 0.0
    return Case(prompt, frozenset(expect), hits, len(prompt_terms(prompt)), chatter)


def _fold(cases: Sequence[Case], which: int) -> list[Case]:
    need = [c for c in cases if c.expect]
    none = [c for c in cases if not c.expect]
    return need[which::2] + none[which::2]


def _gate_json(gate: Gate) -> dict[str, float]:
    return {"meaning": gate.meaning, "meaning_with_words": gate.meaning_with_words, "chatter": gate.chatter}
