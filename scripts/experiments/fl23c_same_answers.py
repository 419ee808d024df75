"""The ids of the first 100 ``bench latency`` queries' top 10, as JSON: run it on two trees and ``cmp``.

    PYTHONPATH=<tree>/src python scripts/experiments/fl23c_same_answers.py COPY_OF_BENCH.db > ids.json
"""
import sys, json
from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
e = MemoryEngine(open_store(sys.argv[1]), load_embedder("use"))
print(json.dumps([[h.memory.id for h in e.recall(q, SCOPE, k=10)] for q in synthetic_queries(100)]))
