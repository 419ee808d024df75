"""Recall's candidate-row read (117 random rows of the scope) by id and by rowid, fairly, CPU ms p50.

fl23c measured 1.23 ms by ``id IN`` and 0.78 by ``rowid IN`` reading the *same* rows by id first,
then by rowid: the second read found their pages in the CPU caches. Here each read has rows of its
own (``fresh_*``), the method that goes first alternates, and fl23c's order is repeated beside it.

    python scripts/experiments/fl26_rows_by_rowid.py COPY_OF_BENCH.db 400
"""
import json
import os
import random
import sys
import time

import numpy as np

from shitsuji.bench.latency import SCOPE
from shitsuji.memory import open_store
from shitsuji.memory._rows import SELECT, marks, to_memory

store = open_store(sys.argv[1])
db = store._db
rows = db.execute("SELECT rowid, id FROM memories WHERE scope = ?", (SCOPE,)).fetchall()
rng = random.Random(3)
clock = time.process_time
R: dict[str, list[float]] = {k: [] for k in ("fresh_by_id", "fresh_by_rowid", "fl23c_id_first", "fl23c_rowid_second", "to_memory")}


def by_id(pick):
    ids = [r[1] for r in pick]
    return db.execute(f"{SELECT} WHERE id IN ({marks(len(ids))})", ids).fetchall()


def by_rowid(pick):
    rids = [r[0] for r in pick]
    return db.execute(f"{SELECT} WHERE rowid IN ({marks(len(rids))})", rids).fetchall()


for i in range(int(sys.argv[2])):
    a, b, c = rng.sample(rows, 117), rng.sample(rows, 117), rng.sample(rows, 117)
    order = [("fresh_by_id", by_id, a), ("fresh_by_rowid", by_rowid, b)]
    if i % 2:
        order.reverse()
    times = {}
    for name, read, pick in order:
        t0 = clock()
        read(pick)
        times[name] = clock() - t0
    t0 = clock()
    got = by_id(c)
    t1 = clock()
    by_rowid(c)
    t2 = clock()
    [to_memory(r) for r in got]
    t3 = clock()
    times |= {"fl23c_id_first": t1 - t0, "fl23c_rowid_second": t2 - t1, "to_memory": t3 - t2}
    if i >= 40:
        for k, v in times.items():
            R[k].append(v)
print(json.dumps({k: round(float(np.median(v)) * 1000, 3) for k, v in R.items()} | {"load": os.getloadavg()[0]}))
