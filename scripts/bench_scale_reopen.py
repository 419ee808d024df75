"""First recall in a freshly opened memory store, and the recalls after it, on a filled database.

``shitsuji bench scale`` fills a database and reports ``first_recall_after_open_ms`` once; this
script repeats the measure on a database it filled (``--keep``-style: pass the file) so that two
builds of shitsuji can be timed on the same file side by side, e.g. main checked out elsewhere
with ``PYTHONPATH=<main>/src``::

    python scripts/bench_scale_reopen.py fill /tmp/scale/memory.db --n 1000000 --scopes 10000
    python scripts/bench_scale_reopen.py reopen /tmp/scale/memory.db --scopes 10000 --trials 3

Each trial opens a new store (as a new process would), recalls once in a random scope (the
first recall), then 50 more in random scopes; printed as JSON. Vectors are random 512-d unit
vectors passed to ``recall`` (the database's work; no embedder), as in ``bench scale``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import numpy as np

from shitsuji.bench.scale_memory import _RandomEmbedder, run_memory_scale
from shitsuji.memory import MemoryEngine, open_store


def reopen(target: str, scopes: int, trials: int, seed: int = 7) -> dict[str, object]:
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    firsts: list[float] = []
    later: list[float] = []
    cpu: list[float] = []  # CPU ms of the later recalls: what a shared machine's load moves least
    for _ in range(trials):
        store = open_store(target)
        engine = MemoryEngine(store, _RandomEmbedder(512))
        for q in range(51):
            vector = nrng.standard_normal(512).astype(np.float32)
            vector /= np.linalg.norm(vector)
            t0, c0 = time.perf_counter(), time.process_time()
            engine.recall("kaki sushi", f"bench/s{rng.randrange(scopes):05d}", k=10, vector=vector)
            (firsts if q == 0 else later).append((time.perf_counter() - t0) * 1000)
            if q:
                cpu.append((time.process_time() - c0) * 1000)
        store.close()
    later.sort()
    cpu.sort()
    return {
        "first_recall_ms": [round(x, 1) for x in firsts],
        "then_p50_ms": round(later[len(later) // 2], 2),
        "then_p95_ms": round(later[int(len(later) * 0.95)], 2),
        "then_cpu_p50_ms": round(cpu[len(cpu) // 2], 2),
        "then_cpu_p95_ms": round(cpu[int(len(cpu) * 0.95)], 2),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["fill", "reopen"])
    parser.add_argument("db")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--scopes", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    if args.mode == "fill":
        out = run_memory_scale(args.db, args.n, args.scopes, queries=200, dim=512)
    else:
        out = reopen(args.db, args.scopes, args.trials)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
