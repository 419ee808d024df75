"""get_many by id (6e9f104's MemoryRows.get_many) vs through the id -> rowid map, the map full; needs fl26_rowid_map.patch applied (git apply).

    python scripts/experiments/fl26_get_many_ab.py COPY_OF_BENCH.db 600
"""
import sys, time, random, numpy as np, os
from shitsuji.bench.latency import SCOPE
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._rows import MemoryRows
store = open_store(sys.argv[1]); engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10); engine.recall("warm-up 2", SCOPE, k=10)
rows = store._db.execute("SELECT id, rowid FROM memories WHERE scope = ?", (SCOPE,)).fetchall()
ids = [r[0] for r in rows]; store._rowids.update(rows)
rng = random.Random(1)
R = {"by_id (6e9f104)": [], "by_rowid (map)": []}
for i in range(int(sys.argv[2])):
    order = list(R) if i % 2 else list(reversed(R))
    for k in order:
        pick = rng.sample(ids, 117)
        t0 = time.process_time()
        got = MemoryRows.get_many(store, pick) if k.startswith("by_id") else store.get_many(pick)
        R[k].append(time.process_time() - t0)
print({k: round(float(np.median(v[40:])) * 1e3, 3) for k, v in R.items()}, os.getloadavg()[0])
