"""Embedder speed side by side: documents per second and milliseconds per query.

Every candidate embeds the same synthetic Japanese/English memories in the same run,
so the ratio between them holds even on a busy machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from ..errors import EmbedderError, UserInputError
from ..memory import load_embedder
from .latency import synthetic_memories, synthetic_queries


def run_embedders(
    names: Sequence[str], *, docs: int = 512, queries: int = 100, batch: int = 64
) -> dict[str, Any]:
    texts = list(synthetic_memories(docs, seed=3))
    asks = synthetic_queries(queries, seed=5)
    out: dict[str, Any] = {}
    for name in names:
        try:
            model = load_embedder(name)
        except (EmbedderError, UserInputError) as exc:
            out[name] = {"error": str(exc)}
            continue
        model.embed_documents(texts[:batch])  # warm-up: first call loads weights
        start = time.perf_counter()
        for i in range(0, len(texts), batch):
            model.embed_documents(texts[i : i + batch])
        docs_per_s = len(texts) / (time.perf_counter() - start)
        timings = []
        for ask in asks:
            t0 = time.perf_counter()
            model.embed_query(ask)
            timings.append((time.perf_counter() - t0) * 1000)
        out[name] = {
            "model_id": model.model_id,
            "docs_per_s": round(docs_per_s, 1),
            "query_ms_median": round(statistics.median(timings), 2),
        }
    return out
