"""CPU ms (p50 / p95) of the parts of a SQLite recall on a kept 100k store, called one after the other as
``MemoryEngine.recall`` calls them, and of the exact floor (``bench latency``'s) in turn with each query.

    PYTHONPATH=<tree>/src python scripts/experiments/fl27_recall_parts.py COPY_OF_BENCH.db 200 [wall]

On a tree without ``_rank.top_hits`` (453f1c1) the rows part is ``memories_with_vectors`` of every
candidate, then ``rank_candidates``; with it, ``top_hits`` (its reads and its ranking).
"""
import json
import os
import sys
import time

import numpy as np

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms

try:
    from shitsuji.memory._rank import top_hits
except ImportError:
    top_hits = None

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
engine.recall("warm-up again", SCOPE, k=10)
clock = time.process_time if "wall" not in sys.argv else time.perf_counter
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
names = ("terms", "embed", "sync_vectors", "product", "top60", "sync_keywords", "keyword_search", "rows_and_rank",
         "floor_embed", "floor_product", "floor_top")
parts = {k: [] for k in names}
chain, weights, model = lineage(SCOPE), engine.ranking_weights(), engine.embedder.model_id
ids = [m.id for m in engine.list_memories(SCOPE)]
vecs = store.vectors_of(model, ids)
matrix = np.stack(list(vecs.values()))
del vecs, ids
for query in synthetic_queries(n):
    t = [clock()]
    asked = query_terms(query); t.append(clock())
    vector = engine.embedder.embed_query(query); t.append(clock())
    index = store._synced_vectors(model, len(vector), chain); t.append(clock())
    marks = None
    if isinstance(index, tuple):  # this branch: the index and the marks it was synced against
        index, marks = index
    vi = index.indexes[SCOPE]
    with store._lock:
        mask = vi.slots.mask([SCOPE])
        m = vi._matrix[: vi.slots.size]
    scores = m @ vector; t.append(clock())
    near = vi.slots.best_per_memory(scores, mask, 60); t.append(clock())
    store._sync_keywords(chain, marks) if marks is not None else store._sync_keywords(chain)
    t.append(clock())
    with store._lock:
        keyword = store._keywords.search(asked, chain, 60)
    t.append(clock())
    ranked = {"keyword": keyword, "vector": near}
    now = engine.clock()
    if top_hits is not None:
        top_hits(query, asked, ranked, chain, lambda i: store.memories_with_vectors(i, model), now, weights, 10)
    else:
        cands = list({x.memory_id for matches in ranked.values() for x in matches})
        memories, vectors = store.memories_with_vectors(cands, model)
        rank_candidates(Candidates(query, asked, ranked, memories, vectors, chain), now, weights)[:10]
    t.append(clock())
    q = engine.embedder.embed_query(query); t.append(clock())
    s = matrix @ q; t.append(clock())
    np.argpartition(-s, 10)[:10]; t.append(clock())
    for name, a, b in zip(names, t, t[1:]):
        parts[name].append((b - a) * 1000)
out = {k: [round(float(np.percentile(v, 50)), 3), round(float(np.percentile(v, 95)), 3)] for k, v in parts.items()}
out["recall_sum_p50"] = round(sum(out[k][0] for k in names[:8]), 2)
out["floor_sum_p50"] = round(sum(out[k][0] for k in names[8:]), 2)
out["load"] = round(os.getloadavg()[0], 1)
print(json.dumps(out))
