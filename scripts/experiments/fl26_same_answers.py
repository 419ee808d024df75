"""The top 10 (ids and scores) of the first N ``bench latency`` queries, as JSON: run it on two trees and ``cmp``.

    PYTHONPATH=<tree>/src python scripts/experiments/fl26_same_answers.py COPY_OF_BENCH.db 200 > answers.json
"""
import json
import sys

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store

engine = MemoryEngine(open_store(sys.argv[1]), load_embedder("use"))
queries = synthetic_queries(int(sys.argv[2]))
print(json.dumps([[(h.memory.id, h.score) for h in engine.recall(q, SCOPE, k=10)] for q in queries]))
