"""Fusing keyword and vector matches into one ranking.

Each retriever returns its best candidates with a raw score (BM25, cosine). Scores are
min-max normalised within each list and summed with per-signal weights: on the LoCoMo
and LongMemEval dev sets this beat reciprocal-rank fusion (k=60) by 0.15 and 0.01
recall (docs/benchmarks.md), because a strong keyword match keeps its margin instead of
being flattened to a rank. The fused score is then weighted by what a person would
expect to matter: how important the fact is, how recent it is, and how far up the scope
tree it lives.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ._records import Hit, Memory


@dataclass(frozen=True, slots=True)
class RecallWeights:
    """Tunable knobs of recall; the defaults were tuned on the dev sets in docs/benchmarks.md."""

    candidates: int = 60  # taken from each retriever before fusion
    vector_weight: float = 1.0
    keyword_weight: float = 1.0
    importance_weight: float = 0.2  # score x (1 + w * (importance - 0.5))
    recency_weight: float = 0.1  # score x (1 + w * 0.5 ** (age / half-life))
    recency_half_life_days: float = 90.0
    ancestor_penalty: float = 0.85  # score x penalty ** distance


def fuse(
    ranked: dict[str, list[tuple[str, float]]], weights: dict[str, float]
) -> dict[str, tuple[float, dict[str, float]]]:
    """Weighted sum of min-max normalised scores; returns id → (score, raw score per signal)."""
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for name, hits in ranked.items():
        if not hits:
            continue
        w = weights.get(name, 1.0)
        scores = [raw for _, raw in hits]
        low, span = min(scores), max(scores) - min(scores)
        for memory_id, raw in hits:
            norm = (raw - low) / span if span > 0 else 1.0
            score, signals = out.get(memory_id, (0.0, {}))
            signals[name] = raw
            out[memory_id] = (score + w * norm, signals)
    return out


def weigh(
    fused: dict[str, tuple[float, dict[str, float]]],
    memories: dict[str, Memory],
    distances: dict[str, int],
    now: datetime,
    w: RecallWeights,
) -> list[Hit]:
    """Apply importance, recency and scope distance; drop rows no longer valid; best first."""
    hits: list[Hit] = []
    for memory_id, (score, signals) in fused.items():
        memory = memories.get(memory_id)
        if memory is None or memory.deleted_at is not None:
            continue
        if memory.valid_until is not None and memory.valid_until <= now:
            continue
        distance = distances.get(memory.scope)
        if distance is None:  # never show a row outside the reader's lineage
            continue
        age_days = max((now - memory.created_at).total_seconds() / 86400.0, 0.0)
        recency = 0.5 ** (age_days / w.recency_half_life_days)
        final = (
            score
            * (1.0 + w.importance_weight * (memory.importance - 0.5))
            * (1.0 + w.recency_weight * recency)
            * (w.ancestor_penalty**distance)
        )
        hits.append(Hit(memory=memory, score=final, signals=signals))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits
