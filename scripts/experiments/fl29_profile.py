"""pyinstrument (sampling) of N ``bench latency`` recalls and N exact floors, in turn, on a copy of the kept
100k fill; the recalls' and the floors' own trees printed apart (issue 23, fl29).

    PYTHONPATH=<tree>/src python scripts/experiments/fl29_profile.py COPY_OF_BENCH.db 400 > OUT.txt
"""
import sys

from pyinstrument import Profiler

from shitsuji.bench.latency import SCOPE, _exact_floor, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
engine.recall("warm-up again", SCOPE, k=10)
floor = _exact_floor(engine, k=10)
recalls, floors = Profiler(interval=0.0001), Profiler(interval=0.0001)
for q in synthetic_queries(int(sys.argv[2])):
    recalls.start()
    engine.recall(q, SCOPE, k=10)
    recalls.stop()
    floors.start()
    floor(q)
    floors.stop()
for name, p in (("RECALL", recalls), ("FLOOR", floors)):
    print("=" * 30, name)
    print(p.output_text(unicode=False, show_all=False, timeline=False))
    print(p.output_text(unicode=False, flat=True, processor_options={"filter_threshold": 0.002}))
