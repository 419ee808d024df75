"""Issue 23 (ky23): do a fact's search keys help as meaning too, not only as words? `bench japanese`
with keys, where each keyed fact's vector is unit(fact + weight x keys) — the keys embedded as one text
("coriander, cilantro, 香草 …") and added as a context's vector is (``_embedding``). Not shipped: an
experiment through an embedder wrapper, so the bench's own loop runs unchanged (docs/benchmarks.md, ky23).

    .venv/bin/python scripts/experiments/ky23_keys_vector.py src/shitsuji/bench/data/ja-fresh \
        src/shitsuji/bench/data/ja-fresh/keys-dev.jsonl 0.5 1.0
"""

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from shitsuji.bench import run_japanese
from shitsuji.bench.japanese import _jsonl
from shitsuji.memory import USEEmbedder


class KeyedUse:
    """``use``, with each known fact's document vector moved towards its keys' vector."""

    def __init__(self, keys_of: dict[str, list[str]], weight: float) -> None:
        self.inner = USEEmbedder()
        self.keys_of, self.weight = keys_of, weight
        self.model_id, self.dedupe_threshold, self.close_cosine = "use-multilingual-v3", 0.92, 0.6

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        own = self.inner.embed_documents(texts)
        keyed = [i for i, t in enumerate(texts) if t in self.keys_of]
        if keyed:
            extra = self.inner.embed_documents([", ".join(self.keys_of[texts[i]]) for i in keyed])
            for row, i in enumerate(keyed):
                v = own[i] + self.weight * extra[row]
                own[i] = v / np.linalg.norm(v)
        return own

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


directory, keys_file = Path(sys.argv[1]), Path(sys.argv[2])
facts = {
    f["id"]: f["content"]
    for f in _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
}
keys_of = {facts[r["id"]]: r["keys"] for r in _jsonl(keys_file, {"id": str, "keys": list})}
for weight in [float(w) for w in sys.argv[3:]]:
    out = run_japanese(directory, embedder=KeyedUse(keys_of, weight), distractors=200, keys=keys_file)
    by = {k: f"{round(v['hit'] * v['n'])}/{v['n']}" for k, v in out["by_class"].items()}
    print(
        directory.name,
        "keys vector weight",
        weight,
        out["hit"],
        out["hit_at_1"],
        json.dumps(by),
        out["misses"],
    )
