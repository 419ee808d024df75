"""Issue 23 (kv26): what keys-as-meaning costs a write. Times ``remember`` (one call a fact) and an import
(``add_many`` + ``index_pending``) of synthetic facts, every one with keys, on a fresh SQLite file with
``use``; prints one JSON line (process CPU and wall seconds per phase). Run it side by side with the code
before (``PYTHONPATH=/tmp/wt-6e9f104/src``), alternating rounds (docs/benchmarks.md, kv26).

    .venv/bin/python scripts/experiments/kv26_keys_cost.py 200 2000
"""

import json
import os
import sys
import time

from shitsuji.bench._common import bench_engine
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import NewMemory

KEYS = [
    ["coriander", "cilantro", "香草", "苦手な食べ物"],
    ["通勤", "commute", "bicycle", "自転車"],
    ["誕生日", "birthday", "記念日"],
    ["allergy", "アレルギー", "エビ", "shellfish", "食べられないもの"],
]


def timed(run):  # type: ignore[no-untyped-def]
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return round(time.process_time() - cpu, 2), round(time.perf_counter() - wall, 2)


n_remember, n_import = int(sys.argv[1]), int(sys.argv[2])
facts = list(synthetic_memories(n_remember + n_import, seed=5))
with bench_engine("use") as engine:
    engine.embedder.embed_documents(["warm-up"])
    remember = timed(
        lambda: [engine.remember(t, "bench/r", keys=KEYS[i % 4]) for i, t in enumerate(facts[:n_remember])]
    )
    items = [NewMemory(content=t, scope="bench/i", keys=tuple(KEYS[i % 4])) for i, t in enumerate(facts[n_remember:])]
    add = timed(lambda: engine.add_many(items))
    index = timed(engine.index_pending)
print(
    json.dumps(
        {
            "code": os.environ.get("PYTHONPATH", "mine"),
            "remember_cpu_wall": remember,
            "import_add_cpu_wall": add,
            "import_index_cpu_wall": index,
            "load": open("/proc/loadavg").read().split()[:3],
        }
    ),
    flush=True,
)
