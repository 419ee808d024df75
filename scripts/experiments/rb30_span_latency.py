"""Issue 23 rb30 (dt29_span_latency.py with the rows read): recall CPU/wall of pooled LongMemEval dev's span
questions (and as many others) on a kept SQLite file of the pooled haystack (rb30_span_ab.sh builds it), median
of ``passes`` per question, and the rows ``top_hits`` read per recall: on the first pass over the questions
(``cold``: the engine's ``RowFacts`` know only the rows earlier questions read) and on the timed passes.

    PYTHONPATH=<tree>/src python scripts/experiments/rb30_span_latency.py DATA.json DB PASSES [--fill]

``--fill`` (this branch only) first stores each row's ``about`` column (what ``reindex`` does, without
re-embedding): a file written before ``0028_dt29_about_spans`` holds NULL there and is read from its text.
"""
import json
import statistics
import sys
import time
from datetime import UTC
from pathlib import Path

from shitsuji.bench import longmemeval as lme
from shitsuji.memory import MemoryEngine, _engine, load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._when import asked_span

path, db, passes = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
questions = [q for q in lme.load(path) if not q["id"].endswith("_abs")]
clock = lme.AskedAt()
store = open_store(db)
if "--fill" in sys.argv:
    from shitsuji.memory._about import about_column

    rows = list(store.list_memories(None, include_deleted=True))
    store.set_about([(m.id, about_column(m)) for m in rows])  # type: ignore[attr-defined]
plain_top = _engine.top_hits
counts = {"read": 0, "candidates": 0}


def top_hits(text, asked, ranked, chain, read, *rest):  # type: ignore[no-untyped-def]
    counts["candidates"] += len({m.memory_id for matches in ranked.values() for m in matches})

    def counted(ids):  # type: ignore[no-untyped-def]
        counts["read"] += len(ids)
        return read(ids)

    return plain_top(text, asked, ranked, chain, counted, *rest)


_engine.top_hits = top_hits  # type: ignore[assignment]
engine = MemoryEngine(store, load_embedder("use"), clock=clock)
scope = "bench/lme/pooled"
groups: dict[str, list] = {"span": [], "plain": []}
for q in questions:
    clock.now = q["asked"]
    groups["span" if asked_span(q["question"], clock(), UTC) else "plain"].append(q)
groups["plain"] = groups["plain"][: len(groups["span"])]
cold = {}
for name, qs in groups.items():  # warm: vectors, caches
    counts.update(read=0, candidates=0)
    for q in qs:
        clock.now = q["asked"]
        engine.recall(q["question"], scope, k=100)
    cold[name] = dict(counts)
out = {}
for name, qs in groups.items():
    counts.update(read=0, candidates=0)
    cpu, wall = [], []
    for q in qs:
        clock.now = q["asked"]
        c, w = [], []
        for _ in range(passes):
            t0, p0 = time.perf_counter(), time.process_time()
            engine.recall(q["question"], scope, k=100)
            w.append(time.perf_counter() - t0)
            c.append(time.process_time() - p0)
        cpu.append(statistics.median(c) * 1000)
        wall.append(statistics.median(w) * 1000)
    cpu.sort()
    wall.sort()
    out[name] = {
        "n": len(qs),
        "cpu_p50": round(statistics.median(cpu), 2),
        "cpu_p95": round(cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))], 2),
        "wall_p50": round(statistics.median(wall), 2),
        "wall_p95": round(wall[min(len(wall) - 1, round(0.95 * (len(wall) - 1)))], 2),
        "cpu_sum": round(sum(cpu), 1),
        "candidates_per_recall": round(counts["candidates"] / (len(qs) * passes), 1),
        "rows_read_per_recall": round(counts["read"] / (len(qs) * passes), 1),
        "rows_read_per_recall_cold": round(cold[name]["read"] / len(qs), 1),
    }
print(json.dumps(out))
store.close()
