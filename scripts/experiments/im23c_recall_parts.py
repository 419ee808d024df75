"""Where a recall's CPU goes beside the exact floor, part by part (issue 23, im23c).

    .venv/bin/python scripts/experiments/im23c_recall_parts.py STORE.db [QUERIES] [N]

STORE.db holds ``bench latency``'s memories in its one scope, embedded with the hash-512 embedder
(built here with N memories, default 100,000, when the file does not exist). Each query runs the
steps ``MemoryEngine.recall`` runs, timed apart (CPU), then the floor (``bench latency``'s exact
numpy search); it also times the vector product over the index's own matrix (mapped from the
snapshot when loaded from one) against a private copy of it. Prints p50 per part.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC
from pathlib import Path

import numpy as np

from shitsuji.bench.latency import SCOPE, _exact_floor, synthetic_memories, synthetic_queries
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._engine import Candidates, lineage, query_terms, rank_candidates


def main() -> None:
    path = Path(sys.argv[1])
    queries = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    if not path.exists():
        engine = MemoryEngine(open_store(path), HashEmbedder(512))
        engine.add_many(
            NewMemory(content=t, scope=SCOPE)
            for t in synthetic_memories(int(sys.argv[3]) if len(sys.argv) > 3 else 100_000)
        )
        engine.index_pending()
    store = open_store(path)
    engine = MemoryEngine(store, HashEmbedder(512))
    engine.recall("warm-up", SCOPE, k=10)
    floor = _exact_floor(engine, 10)
    index = store._vectors[engine.embedder.model_id].indexes[SCOPE]  # type: ignore[attr-defined]
    matrix = index._matrix[: index.slots.size]
    private = np.array(matrix)
    parts: dict[str, list[float]] = {}
    clock = time.process_time

    def took(name: str, since: float) -> float:
        now = clock()
        parts.setdefault(name, []).append((now - since) * 1000)
        return now

    for query in synthetic_queries(queries):
        t = clock()
        chain, asked = lineage(SCOPE), query_terms(query)
        vector = engine.embedder.embed_query(query)
        t = took("query terms + embedding", t)
        keyword = store.keyword_search(asked, chain, 60)
        t = took("keyword search", t)
        found = store.vector_search(engine.embedder.model_id, vector, chain, 60)
        t = took("vector search", t)
        ranked = {"keyword": keyword, "vector": found}
        ids = list({m.memory_id for matches in ranked.values() for m in matches})
        memories, vectors = store.memories_with_vectors(ids, engine.embedder.model_id)
        t = took("candidate rows + vectors", t)
        rank_candidates(
            Candidates(query, asked, ranked, memories, vectors, chain), engine.clock(), engine.weights, UTC
        )
        t = took("rank_candidates", t)
        floor(query)
        t = took("exact floor", t)
        _ = matrix @ vector
        t = took("product over the index's matrix", t)
        _ = private @ vector
        took("product over a private copy", t)
    print(f"index matrix writeable: {matrix.flags.writeable} (False: mapped from its snapshot)")
    for name, values in parts.items():
        print(f"{name:34s} p50 {np.median(values):7.2f} ms")


if __name__ == "__main__":
    main()
