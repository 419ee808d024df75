"""What the readings warning costs (issue 23, ja23b): migration 0015 over 100,000 rows written at 0014,
then ``count_without_readings`` before and after a reindex would mark them (SQLite, median of 7).

    .venv/bin/python scripts/readings_check_cost.py [ROWS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._sqlite_store import SQLiteMemoryStore
from shitsuji.store import Schema, open_database


def _median_count(store: SQLiteMemoryStore) -> tuple[int, float]:
    runs, count = [], 0
    for _ in range(7):
        start = time.perf_counter()
        count = store.count_without_readings()
        runs.append(time.perf_counter() - start)
    return count, statistics.median(runs) * 1000


def main(rows: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.db"
        before = Schema("memory", tuple(m for m in MEMORY_SCHEMA.migrations if m.name < "0015"))
        old = open_database(path, before)
        with old.write() as tx:
            tx.executemany(
                "INSERT INTO memories (id, scope, content, category, importance, source, created_at, "
                "updated_at, content_hash, terms) VALUES (?, 'household/x', ?, 'misc', 0.5, 'imported', "
                "'2026-01-01', '2026-01-01', ?, 'x')",
                [(f"m{i}", text, f"h{i}") for i, text in enumerate(synthetic_memories(rows, seed=1))],
            )
        old.close()
        start = time.perf_counter()
        db = open_database(path, MEMORY_SCHEMA)
        print(f"migration 0015 on {rows} rows: {time.perf_counter() - start:.2f} s")
        store = SQLiteMemoryStore(db)
        count, ms = _median_count(store)
        print(f"count of rows without readings: {count}, median {ms:.1f} ms")
        with db.write() as tx:
            tx.execute("UPDATE memories SET readings = 1")  # what a reindex leaves
        count, ms = _median_count(store)
        print(f"after a reindex: {count}, median {ms:.3f} ms")
        db.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
