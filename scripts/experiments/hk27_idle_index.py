"""index_pending with nothing pending, at N rows (SQLite): what a server's start runs in the background.
Make the file first with hk27_count_cost.py N; run with and without PYTHONPATH=<base>/src, alternating."""
import sys, time, statistics
from pathlib import Path
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
import shitsuji
store = open_store(Path(f"/tmp/hk27/count_{sys.argv[1]}.db"))
named = HashEmbedder(); named.model_id = "use-multilingual-v3"
engine = MemoryEngine(store, named)
ts = []
for _ in range(9):
    t = time.perf_counter(); assert engine.index_pending() == 0; ts.append(time.perf_counter() - t)
print(shitsuji.__file__.split("/src/")[0], f"median {statistics.median(ts)*1000:.2f} ms")
