"""Exact counts a recall makes on a kept 100k store, independent of load: candidates, rows read, read
statements, ``Fused`` made (``fuse``'s output), ``asked_span`` calls — over the first N ``bench latency``
queries, and per half (the second half meets rows the first half read).

    PYTHONPATH=<tree>/src python scripts/experiments/fl28_counts.py COPY_OF_BENCH.db 200
"""
import json
import statistics
import sys

import shitsuji.memory._rank as rank
from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
n = int(sys.argv[2])
count = {"rows": 0, "reads": 0, "fused": 0, "spans": 0, "candidates": 0}
per: list[dict[str, int]] = []
plain_read, plain_fuse, plain_span, plain_top = store.memories_with_vectors, rank.fuse, rank.span_words, rank.top_hits


def read(ids, model):  # type: ignore[no-untyped-def]
    count["rows"] += len(ids)
    count["reads"] += 1
    return plain_read(ids, model)


def fuse(*a, **kw):  # type: ignore[no-untyped-def]
    out = plain_fuse(*a, **kw)
    count["fused"] += len(out)
    return out


def span(*a, **kw):  # type: ignore[no-untyped-def]
    count["spans"] += 1
    return plain_span(*a, **kw)


def top(text, asked, ranked, *a, **kw):  # type: ignore[no-untyped-def]
    count["candidates"] += len({m.memory_id for ms in ranked.values() for m in ms})
    return plain_top(text, asked, ranked, *a, **kw)


store.memories_with_vectors = read  # type: ignore[method-assign]
rank.fuse, rank.span_words, rank.top_hits = fuse, span, top
import shitsuji.memory._engine as eng  # noqa: E402

eng.top_hits = top
for q in synthetic_queries(n):
    for key in count:
        count[key] = 0
    engine.recall(q, SCOPE, k=10)
    per.append(dict(count))
out = {}
for name, part in (("all", per), ("first_half", per[: n // 2]), ("second_half", per[n // 2 :])):
    out[name] = {k: round(statistics.mean(p[k] for p in part), 2) for k in count}
print(json.dumps(out))
