"""Issue 23 (ja23): cross-lingual queries ranked by one embedder's vector alone (use, then e5).

Each cross-lingual query of SET_DIR against its member's and the shared facts plus 200 synthetic
distractors; prints the rank (0-based) of its first expected fact and the top-3 count.
Usage: python scripts/experiments/ja23_e5_cross.py SET_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory._embedders import E5Embedder, USEEmbedder


def main(directory: Path) -> None:
    lines = (directory / "facts-dev.jsonl").read_text(encoding="utf-8").splitlines()
    facts = [json.loads(line) for line in lines if line.strip()]
    lines = (directory / "queries-dev.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [q for q in map(json.loads, filter(None, lines)) if q.get("class") == "cross-lingual"]
    for embedder in (USEEmbedder(), E5Embedder()):
        top3 = 0
        for query in queries:
            own = [f for f in facts if f.get("shared") or f.get("user") == query["user"]]
            texts = [f["content"] for f in own] + list(synthetic_memories(200, seed=len(query["user"])))
            scores = embedder.embed_documents(texts) @ embedder.embed_query(query["query"])
            order = list(np.argsort(-scores))
            rank = min(order.index(i) for i, f in enumerate(own) if f["id"] in query["expected"])
            top3 += rank < 3
            print(embedder.model_id, rank, query["query"])
        print(embedder.model_id, "vector-only top 3:", top3, "/", len(queries))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
