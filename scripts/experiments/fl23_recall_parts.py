"""CPU ms (p50 / p95) of each part of a SQLite recall on a kept store, in the order recall runs them.

    python scripts/experiments/fl23_recall_parts.py COPY_OF_BENCH.db [cpu|wall]

The store is a copy of a ``bench latency`` fill (``scripts/bench_sqlite_recall_kept.py fill``); run it
with ``PYTHONPATH=<other tree>/src`` for the other side. Parts are called one after the other (the
keyword search and the vector scan are not overlapped here, so each is seen alone).
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms


def main() -> None:
    store = open_store(sys.argv[1])
    engine = MemoryEngine(store, load_embedder("use"))
    engine.recall("warm-up", SCOPE, k=10)
    clock = time.perf_counter if sys.argv[2:] == ["wall"] else time.process_time
    parts: dict[str, list[float]] = {k: [] for k in ("embed", "keyword", "vector", "rows", "rank", "whole")}
    chain, weights, model = lineage(SCOPE), engine.ranking_weights(), engine.embedder.model_id
    for query in synthetic_queries(200):
        t = [clock()]
        vector = engine.embedder.embed_query(query)
        t.append(clock())
        asked = query_terms(query)
        keyword = store.keyword_search(asked, chain, 60)
        t.append(clock())
        near = store.vector_search(model, vector, chain, 60)
        t.append(clock())
        ranked = {"keyword": keyword, "vector": near}
        ids = list({m.memory_id for matches in ranked.values() for m in matches})
        memories, vectors = store.memories_with_vectors(ids, model)
        t.append(clock())
        rank_candidates(Candidates(query, asked, ranked, memories, vectors, chain), engine.clock(), weights)
        t.append(clock())
        for name, a, b in zip(parts, t, t[1:], strict=False):
            parts[name].append((b - a) * 1000)
        parts["whole"].append((t[-1] - t[0]) * 1000)
    out = {
        k: [round(float(np.median(v)), 2), round(float(np.percentile(v, 95)), 2)] for k, v in parts.items()
    }
    print(json.dumps({**out, "load": round(os.getloadavg()[0], 1)}))


if __name__ == "__main__":
    main()
