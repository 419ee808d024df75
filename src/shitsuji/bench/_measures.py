"""Retrieval measures as the field reports them, and what a recall costs.

Published memory benchmarks rank *sessions* (LongMemEval's answer sessions, LoCoMo's
session-level anchors) and report recall_any@k (one relevant session in the top k),
recall_all@k (every one) and NDCG@k with binary relevance; we rank turns, so the turn hits
are mapped to their sessions in rank order first (``sessions_in_order``). Beside quality, a
recall has a latency (p50 / p95 over the questions) and a size: the tokens its top hits
would add to a model's prompt (``llm.estimate_tokens``: one per kana/kanji, four Latin
characters each), which is what a wider pool or a longer memory text costs at answer time.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ..llm._tokens import estimate_tokens
from ._common import percentile

T = TypeVar("T", bound=Hashable)


def sessions_in_order(sessions_of_hits: Iterable[T], k: int) -> list[T]:
    """The first ``k`` distinct sessions of the hits, in rank order."""
    return list(dict.fromkeys(sessions_of_hits))[:k]


def ndcg(ranked: Sequence[T], relevant: set[T], k: int) -> float:
    """NDCG@k with binary relevance: 1 when the relevant items lead the ranking, 0 when none is in it."""
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def session_scores(ranked: Sequence[T], relevant: set[T], ks: Sequence[int] = (5, 10)) -> dict[str, float]:
    """recall_any@k, recall_all@k for each k, and NDCG at the largest k, of one question."""
    out: dict[str, float] = {}
    for k in ks:
        top = set(ranked[:k])
        out[f"recall_any@{k}"] = 1.0 if relevant & top else 0.0
        out[f"recall_all@{k}"] = 1.0 if relevant <= top else 0.0
    out[f"ndcg@{max(ks)}"] = ndcg(ranked, relevant, max(ks))
    return out


def mean_scores(rows: Sequence[dict[str, float]]) -> dict[str, float | int]:
    """Each measure averaged over the questions, and their count."""
    keys = list(rows[0]) if rows else []
    out: dict[str, float | int] = {key: round(sum(r[key] for r in rows) / len(rows), 4) for key in keys}
    out["n"] = len(rows)
    return out


@dataclass
class Cost:
    """Latency (seconds) and prompt tokens of each recall."""

    seconds: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, seconds: float, texts: Iterable[str]) -> None:
        self.seconds.append(seconds)
        self.tokens.append(sum(estimate_tokens(t) for t in texts))

    def report(self) -> dict[str, float]:
        return {
            "recall_p50_ms": round(percentile(self.seconds, 50) * 1000, 1),
            "recall_p95_ms": round(percentile(self.seconds, 95) * 1000, 1),
            "prompt_tokens_p50": round(percentile(self.tokens, 50), 1),
            "prompt_tokens_mean": round(sum(self.tokens) / max(len(self.tokens), 1), 1),
        }
