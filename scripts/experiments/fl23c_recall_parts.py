"""CPU ms (p50) of finer parts of a SQLite recall on a kept store, called one after the other.

    python scripts/experiments/fl23c_recall_parts.py COPY_OF_BENCH.db 150 [wall]
"""
import json, os, sys, time
import numpy as np
from shitsuji.bench.latency import SCOPE, synthetic_queries
from shitsuji.memory import MemoryEngine, load_embedder, open_store
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._scopes import lineage
from shitsuji.memory._text import query_terms

store = open_store(sys.argv[1])
engine = MemoryEngine(store, load_embedder("use"))
engine.recall("warm-up", SCOPE, k=10)
engine.recall("warm-up again", SCOPE, k=10)
clock = time.process_time if "wall" not in sys.argv else time.perf_counter
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
names = ("terms", "embed", "gen+syncvec", "scanfreeze", "product", "top60", "synckw", "kwsearch", "get_many", "vectors_of", "rank")
parts = {k: [] for k in names}
chain, weights, model = lineage(SCOPE), engine.ranking_weights(), engine.embedder.model_id
for query in synthetic_queries(n):
    t = [clock()]
    asked = query_terms(query); t.append(clock())
    vector = engine.embedder.embed_query(query); t.append(clock())
    index = store._synced_vectors(model, len(vector), chain); t.append(clock())
    with store._lock:
        scan = index.scan(chain)
    t.append(clock())
    vi = index.indexes[SCOPE]
    m = vi._matrix[: vi.slots.size]
    scores = m @ vector; t.append(clock())
    mask = vi.slots.mask([SCOPE])
    near = vi.slots.best_per_memory(scores, mask, 60); t.append(clock())
    store._sync_keywords(chain); t.append(clock())
    with store._lock:
        keyword = store._keywords.search(asked, chain, 60)
    t.append(clock())
    ranked = {"keyword": keyword, "vector": near}
    ids = list({x.memory_id for matches in ranked.values() for x in matches})
    memories = store.get_many(ids); t.append(clock())
    vectors = store.vectors_of(model, ids); t.append(clock())
    rank_candidates(Candidates(query, asked, ranked, memories, vectors, chain), engine.clock(), weights)
    t.append(clock())
    for name, a, b in zip(names, t, t[1:]):
        parts[name].append((b - a) * 1000)
out = {k: round(float(np.median(v)), 3) for k, v in parts.items()}
out["sum"] = round(sum(out.values()), 2)
out["load"] = round(os.getloadavg()[0], 1)
print(json.dumps(out))
