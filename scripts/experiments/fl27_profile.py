"""cProfile of N ``bench latency`` recalls (and N exact floors, in turn) on a copy of the kept 100k fill.

    PYTHONPATH=<tree>/src python scripts/experiments/fl27_profile.py COPY_OF_BENCH.db 300 [OUT.prof]
"""
import cProfile
import pstats
import sys

from shitsuji.bench.latency import SCOPE, _exact_floor, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
engine.recall("warm-up again", SCOPE, k=10)
floor = _exact_floor(engine, k=10)
queries = synthetic_queries(int(sys.argv[2]))
profile = cProfile.Profile()
profile.enable()
for q in queries:
    engine.recall(q, SCOPE, k=10)
    floor(q)
profile.disable()
if len(sys.argv) > 3:
    profile.dump_stats(sys.argv[3])
stats = pstats.Stats(profile)
stats.sort_stats("cumulative").print_stats(45)
