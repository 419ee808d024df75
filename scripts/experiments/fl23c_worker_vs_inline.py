"""In one process, per query in turn: recall with the scan on the worker (fl23), recall with it inline, the exact floor.

    PYTHONPATH=<b6d27b8>/src python scripts/experiments/fl23c_worker_vs_inline.py COPY_OF_BENCH.db 200

(needs a tree that still has ``memory/_scans.py``; the copy is a kept ``bench latency`` fill with its snapshots.)
"""
import json, os, sys, time
import numpy as np
from shitsuji.bench.latency import SCOPE, synthetic_queries, _exact_floor
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory import _sqlite_store as ss

store = open_store(sys.argv[1]); engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10); engine.recall("warm-up 2", SCOPE, k=10)
floor = _exact_floor(engine, 10)

class Inline:
    def submit(self, fn, *a):
        class F:
            def __init__(s): s.v = fn(*a)
            def result(s): return s.v
        return F()
real = ss.scans
res = {"worker": [[], []], "inline": [[], []], "floor": [[], []]}
for q in synthetic_queries(int(sys.argv[2])):
    for kind in ("worker", "inline"):
        ss.scans = real if kind == "worker" else (lambda: Inline())
        t0, c0 = time.perf_counter(), time.process_time()
        engine.recall(q, SCOPE, k=10)
        res[kind][0].append((time.perf_counter() - t0) * 1000); res[kind][1].append((time.process_time() - c0) * 1000)
    c0 = time.process_time()
    res["floor"][0].append(floor(q)); res["floor"][1].append((time.process_time() - c0) * 1000)
out = {k: {"p50": round(float(np.median(v[0])), 2), "p95": round(float(np.percentile(v[0], 95)), 2), "cpu50": round(float(np.median(v[1])), 2)} for k, v in res.items()}
out["load"] = os.getloadavg()[0]
print(json.dumps(out))
