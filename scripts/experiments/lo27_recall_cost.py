"""Issue 23 (lo27): what the question's word meanings cost a recall — A/B in one process, alternating.

Recalls LoCoMo dev questions (k = 10) over a store ``recall_folds.py`` built (CACHE/locomo.db),
alternating ``word_meanings`` off / on question by question for ROUNDS rounds; prints the median
wall and CPU milliseconds of each side and their ratio, and the median cost of the query's
embedding alone (sentence vs sentence + words).

    .venv/bin/python scripts/experiments/lo27_recall_cost.py --cache /tmp/lo27/base [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

from shitsuji.bench import locomo as lc
from shitsuji.memory import MemoryEngine, load_embedder
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._open import open_store
from shitsuji.memory._recall import RecallWeights


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lo27/base"))
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    store = open_store(args.cache / "locomo.db")
    engine = MemoryEngine(store, load_embedder("use"))
    asks = [
        (f"bench/locomo/{s['sample_id']}", qa["question"])
        for s in lc.load(args.data / "locomo" / "locomo-dev.json")
        for qa in s.get("qa", [])
    ][::3]
    sides = {False: replace(RecallWeights(), word_meanings=False), True: RecallWeights()}
    wall: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    emb: dict[bool, list[float]] = {False: [], True: []}
    for scope, q in asks[:5]:  # warm: the model, the scopes' vectors
        engine.recall(q, scope, k=10)
    for r in range(args.rounds):
        for n, (scope, q) in enumerate(asks):
            order = (False, True) if (n + r) % 2 == 0 else (True, False)
            for on in order:
                engine.weights = sides[on]
                w0, c0 = time.perf_counter(), time.process_time()
                engine.recall(q, scope, k=10)
                wall[on].append(time.perf_counter() - w0)
                cpu[on].append(time.process_time() - c0)
                w0 = time.perf_counter()
                question_vector(engine.embedder, q, words=on)
                emb[on].append(time.perf_counter() - w0)
    load = os.getloadavg()[0]
    for name, d in (("recall wall", wall), ("recall CPU", cpu), ("query vector wall", emb)):
        off, on = statistics.median(d[False]) * 1000, statistics.median(d[True]) * 1000
        print(
            f"{name:>18} p50 off {off:.2f} ms  on {on:.2f} ms  ratio {on / off:.3f}  (n={len(d[True])}, load {load:.1f})"
        )
    store.close()


if __name__ == "__main__":
    main()
