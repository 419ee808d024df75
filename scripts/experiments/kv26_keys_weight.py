"""Issue 23 (kv26): the weight of a fact's keys in its vector (``_embedding.KEYS_WEIGHT``), swept over
the Japanese sets with keys, 200 distractors, through the shipped ``embed_rows`` (the constant set per
run). Prints one JSON line per (set, weight); the folds are read from them (docs/benchmarks.md, kv26).

    .venv/bin/python scripts/experiments/kv26_keys_weight.py 0 0.25 0.5 0.75 1.0
"""

import json
import sys
from pathlib import Path

from shitsuji.bench import run_japanese
from shitsuji.memory import _embedding

D = Path("src/shitsuji/bench/data")
SETS = {
    "ja-fresh": (D / "ja-fresh", D / "ja-fresh/keys-dev.jsonl"),
    "ja-recall": (D / "ja-recall", D / "ja-recall/keys-dev.jsonl"),
    "ja-dev": (Path("../shared/data/ja"), Path("tests/data/ja-dev-keys.jsonl")),
    "ja-held": (D / "ja-held", D / "ja-held/keys-dev.jsonl"),
}

for weight in [float(w) for w in sys.argv[1:]]:
    _embedding.KEYS_WEIGHT = weight
    for name, (directory, keys) in SETS.items():
        out = run_japanese(directory, embedder="use", distractors=200, keys=keys)
        by = {k: f"{round(v['hit'] * v['n'])}/{v['n']}" for k, v in out["by_class"].items()}
        row = {"set": name, "w": weight, "hit": out["hit"], "hit1": out["hit_at_1"], "by": by}
        print(json.dumps({**row, "misses": out["misses"]}, ensure_ascii=False), flush=True)
