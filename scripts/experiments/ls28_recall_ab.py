"""Recall wall time with the several-things rule on and off, alternating question by question in one process
(issue 23, ls28): LoCoMo dev questions over ``recall_folds``' kept store, k = 10.

    .venv/bin/python scripts/experiments/ls28_recall_ab.py --cache /tmp/ls28/base [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from shitsuji.memory import MemoryEngine, load_embedder
from shitsuji.memory._open import open_store


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/ls28/base"))
    p.add_argument("--data", type=Path, default=Path("/work/shared/data/locomo/locomo-dev.json"))
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    store = open_store(a.cache / "locomo.db")
    engine = MemoryEngine(store, load_embedder("use"))
    on = engine.weights
    off = replace(on, several_by_meaning=False)
    asked = [
        (f"bench/locomo/{s['sample_id']}", qa["question"])
        for s in json.loads(a.data.read_text())
        for qa in s.get("qa", [])
        if "question" in qa
    ]
    seconds: dict[str, list[float]] = {"off": [], "on": []}
    try:
        for scope, question in asked[:20]:  # warm the model and the kept word vectors
            engine.recall(question, scope, k=10)
        for _ in range(a.rounds):
            for scope, question in asked:
                for label, w in (("off", off), ("on", on)):
                    engine.weights = w
                    start = time.perf_counter()
                    engine.recall(question, scope, k=10)
                    seconds[label].append(time.perf_counter() - start)
    finally:
        store.close()
    for label, values in seconds.items():
        ordered = sorted(values)
        print(
            f"{label}: p50 {statistics.median(values) * 1000:.2f} ms, "
            f"p95 {ordered[int(len(ordered) * 0.95)] * 1000:.2f} ms ({len(values)} recalls)"
        )


if __name__ == "__main__":
    main()
