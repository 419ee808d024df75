"""Issue 23 (lo28): Step 1: each LoCoMo dev turn's own USE vector and every question's asked vector, kept in /tmp/lo28/vecs.pkl;
checks that unit(own + unit(mean(two previous turns))) rebuilds the stored vectors (max diff < 2e-7).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import pickle, sys, time
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.bench import locomo as lc
from shitsuji.memory import MemoryEngine, load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._asked import asked_vector

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
emb = load_embedder("use")
store = open_store("/tmp/lo28/locomo.db")
engine = MemoryEngine(store, emb)
out = {}
for s in lc.load(rf.Path("/work/shared/data/locomo/locomo-dev.json")):
    conv = s["sample_id"]
    scope = f"bench/locomo/{conv}"
    turns = lc.turns(s)
    mems = {m.provenance["dia_id"]: m for m in engine.list_memories(scope)}
    ids = [mems[t["dia_id"]].id for t in turns]
    own = np.asarray(emb.embed_documents([lc._memory_text(t) for t in turns]), dtype=np.float32)
    store.vector_search(emb.model_id, own[0], [scope], 1)
    stored = store.vectors_of(emb.model_id, ids)
    out[conv] = dict(
        turns=turns,
        ids=ids,
        own=own,
        stored=np.stack([stored[i] for i in ids]),
        memories={mems[t["dia_id"]].id: mems[t["dia_id"]] for t in turns},
    )
qv = {}
t0 = time.time()
for c in data:
    qv[c["text"]] = np.asarray(asked_vector(emb, c["text"]), dtype=np.float32)
print("q", time.time() - t0)
pickle.dump((out, qv), open("/tmp/lo28/vecs.pkl", "wb"))
# check reconstruction
for conv, o in out.items():
    T = o["turns"]
    own = o["own"]
    rec = []
    for n, t in enumerate(T):
        prev = [own[j] for j in range(max(n - 2, 0), n) if T[j]["session"] == t["session"]]
        v = own[n].copy()
        if prev:
            m = np.mean(prev, 0)
            v = v + m / np.linalg.norm(m)
        rec.append(v / np.linalg.norm(v))
    rec = np.array(rec)
    print(
        conv,
        "max diff",
        float(np.abs(rec - o["stored"]).max()),
        "mean cos",
        float((rec * o["stored"]).sum(1).mean()),
    )
