"""Per query in turn: the exact floor's parts and recall's parts (the scan inline), CPU ms medians.

    python scripts/experiments/fl23c_floor_and_recall_parts.py COPY_OF_BENCH.db 200
"""
import json, os, sys, time
import numpy as np
from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory import _sqlite_store as ss
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms

store = open_store(sys.argv[1]); engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10); engine.recall("warm-up 2", SCOPE, k=10)
ids = [m.id for m in engine.list_memories(SCOPE)]
vecs = store.vectors_of(engine.embedder.model_id, ids)
fm = np.stack(list(vecs.values()))
class Inline:
    def submit(self, fn, *a):
        class F:
            def __init__(s): s.v = fn(*a)
            def result(s): return s.v
        return F()
ss.scans = lambda: Inline()
clock = time.process_time
P = {k: [] for k in ("f_embed", "f_product", "f_top", "r_terms", "r_embed", "r_cand", "r_rows", "r_rank", "floor", "recall")}
chain, model = lineage(SCOPE), engine.embedder.model_id
for q in synthetic_queries(int(sys.argv[2])):
    t0 = clock(); v = engine.embedder.embed_query(q); t1 = clock(); s = fm @ v; t2 = clock(); np.argpartition(-s, 10)[:10]; t3 = clock()
    P["f_embed"].append(t1 - t0); P["f_product"].append(t2 - t1); P["f_top"].append(t3 - t2); P["floor"].append(t3 - t0)
    t0 = clock(); asked = query_terms(q); t1 = clock(); v = engine.embedder.embed_query(q); t2 = clock()
    ranked = store.candidates(asked, model, v, chain, 60); t3 = clock()
    cand = {m.memory_id for ms in ranked.values() for m in ms}
    mem, vv = store.memories_with_vectors(list(cand), model); t4 = clock()
    rank_candidates(Candidates(q, asked, ranked, mem, vv, chain), engine.clock(), engine.ranking_weights()); t5 = clock()
    for k, a, b in (("r_terms", t0, t1), ("r_embed", t1, t2), ("r_cand", t2, t3), ("r_rows", t3, t4), ("r_rank", t4, t5), ("recall", t0, t5)):
        P[k].append(b - a)
out = {k: round(float(np.median(v)) * 1000, 2) for k, v in P.items()}
out["ratio"] = round(out["recall"] / out["floor"], 3); out["load"] = os.getloadavg()[0]
print(json.dumps(out))
