"""Recall's rows-and-ranking step alone, A/B in one process on the same candidate lists: every candidate's
row and vector read, then ``rank_candidates`` (453f1c1's path), against ``top_hits`` (this branch). CPU ms.

    PYTHONPATH=/work/wt-fl27/src python scripts/experiments/fl27_rank_ab.py COPY_OF_BENCH.db 200 [ROUNDS]
"""
import json
import os
import sys
import time

import numpy as np

from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._rank import Candidates, rank_candidates, top_hits
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
chain, weights, model = lineage(SCOPE), engine.ranking_weights(), engine.embedder.model_id
lists = []
for query in synthetic_queries(int(sys.argv[2])):
    asked = query_terms(query)
    ranked = store.candidates(asked, model, engine.embedder.embed_query(query), chain, 60)
    lists.append((query, asked, ranked))
now = engine.clock()
read = lambda i: store.memories_with_vectors(i, model)  # noqa: E731
cpu = {"all_rows": [], "top_hits": []}
for r in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
    for query, asked, ranked in lists:
        for side in (("all_rows", "top_hits") if r % 2 == 0 else ("top_hits", "all_rows")):
            c0 = time.process_time()
            if side == "all_rows":
                ids = list({x.memory_id for matches in ranked.values() for x in matches})
                memories, vectors = read(ids)
                a = rank_candidates(Candidates(query, asked, ranked, memories, vectors, chain), now, weights)[:10]
            else:
                b = top_hits(query, asked, ranked, chain, read, now, weights, 10)
            cpu[side].append((time.process_time() - c0) * 1000)
        assert [(h.memory.id, h.score) for h in a] == [(h.memory.id, h.score) for h in b]
out = {k: [round(float(np.percentile(v, 50)), 3), round(float(np.percentile(v, 95)), 3)] for k, v in cpu.items()}
out["load"] = round(os.getloadavg()[0], 1)
print(json.dumps(out))
