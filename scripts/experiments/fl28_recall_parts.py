"""CPU ms (p50 / p95) of the parts of a SQLite recall on a kept 100k store, as ``MemoryEngine.recall`` runs
them on a3c941b and after (the question's vector as recall makes it: lo27's words or ja27's kanji spelling),
beside the floor's (``bench latency``'s ``_exact_floor``) for the same query; and the rows recall reads.

    PYTHONPATH=<tree>/src python scripts/experiments/fl28_recall_parts.py COPY_OF_BENCH.db 200 [wall]

``vector`` is recall's question vector; ``vector_plain`` the question alone (``embed_query``, what the
floor embeds) timed right after it, so ``vector - vector_plain`` is the work recall does that the floor
does not (the words' lookup and mean, the Sudachi parse of ``question_vector``).
"""
import json
import os
import statistics
import sys
import time
from datetime import UTC

import numpy as np

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._asked import asked_vector, meaning_words
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._rank import top_hits
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
engine.recall("warm-up again", SCOPE, k=10)
clock = time.process_time if "wall" not in sys.argv else time.perf_counter
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
names = ("terms", "vector", "search", "rows_and_rank", "floor_embed", "floor_product", "floor_top", "vector_plain")
parts: dict[str, list[float]] = {k: [] for k in names}
chain, weights, model = lineage(SCOPE), engine.ranking_weights(), engine.embedder.model_id
ids = [m.id for m in engine.list_memories(SCOPE)]
vecs = store.vectors_of(model, ids)
matrix = np.stack(list(vecs.values()))
del vecs, ids
rows: list[int] = []
calls: list[int] = []
plain = store.memories_with_vectors


def counted(ids, model):  # type: ignore[no-untyped-def]
    rows[-1] += len(ids)
    calls[-1] += 1
    return plain(ids, model)


for query in synthetic_queries(n):
    rows.append(0)
    calls.append(0)
    t = [clock()]
    asked = query_terms(query); t.append(clock())
    if weights.word_meanings and meaning_words(query):
        vector = asked_vector(engine.embedder, query)
    else:
        vector = question_vector(engine.embedder, query)
    t.append(clock())
    ranked = store.candidates(asked, model, vector, chain, max(weights.candidates, 30)); t.append(clock())
    read = lambda i: counted(i, model)  # noqa: E731
    facts = getattr(engine, "_row_facts", None)  # fl28: the fixed facts of rows read before
    if facts is not None:
        top_hits(query, asked, ranked, chain, read, engine.clock(), weights, 10, UTC, facts)
    else:
        top_hits(query, asked, ranked, chain, read, engine.clock(), weights, 10)
    t.append(clock())
    q = engine.embedder.embed_query(query); t.append(clock())
    s = matrix @ q; t.append(clock())
    np.argpartition(-s, 10)[:10]; t.append(clock())
    engine.embedder.embed_query(query); t.append(clock())
    for name, a, b in zip(names, t, t[1:]):
        parts[name].append((b - a) * 1000)
out = {k: [round(float(np.percentile(v, 50)), 3), round(float(np.percentile(v, 95)), 3)] for k, v in parts.items()}
out["recall_sum_p50"] = round(sum(out[k][0] for k in names[:4]), 2)
out["floor_sum_p50"] = round(sum(out[k][0] for k in names[4:7]), 2)
out["rows_read_median"] = statistics.median(rows)
out["rows_read_mean"] = round(statistics.mean(rows), 1)
out["reads_mean"] = round(statistics.mean(calls), 2)
out["load"] = round(os.getloadavg()[0], 1)
print(json.dumps(out))
