"""Recall's candidate-row read (117 random rows of the scope) by id and by rowid, and ``to_memory`` apart (CPU ms).

    python scripts/experiments/fl23c_rows_by_rowid.py COPY_OF_BENCH.db
"""
import random, sys, time, json, os
import numpy as np
from shitsuji.memory import open_store
from shitsuji.memory._rows import SELECT, to_memory, marks
from shitsuji.bench.latency import SCOPE
store = open_store(sys.argv[1]); db = store._db
rows = db.execute("SELECT rowid, id FROM memories WHERE scope = ?", (SCOPE,)).fetchall()
rng = random.Random(3)
R = {k: [] for k in ("id_sql", "rowid_sql", "to_memory")}
clock = time.process_time
for i in range(400):
    pick = rng.sample(rows, 117)
    ids = [r[1] for r in pick]; rids = [r[0] for r in pick]
    t0 = clock(); a = db.execute(f"{SELECT} WHERE id IN ({marks(len(ids))})", ids).fetchall(); t1 = clock()
    b = db.execute(f"{SELECT} WHERE rowid IN ({marks(len(rids))})", rids).fetchall(); t2 = clock()
    ms = [to_memory(r) for r in a]; t3 = clock()
    assert sorted(a) == sorted(b)
    if i >= 40:
        R["id_sql"].append(t1 - t0); R["rowid_sql"].append(t2 - t1); R["to_memory"].append(t3 - t2)
print(json.dumps({k: round(float(np.median(v)) * 1000, 3) for k, v in R.items()} | {"load": os.getloadavg()[0]}))
