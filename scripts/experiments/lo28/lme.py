"""Issue 23 (lo28): Pooled LongMemEval and LongMemEval_S with the question vector 'sentence + words as one phrase'.

Reads scripts/recall_folds.py's collected lists of (--cache /tmp/lo27/words: made by lo27's code, it reproduces main a3c941b's
LoCoMo / pooled / S figures exactly)
and copies of its SQLite stores in /tmp/lo28; run from the worktree with .venv/bin/python.
"""

import pickle, sys
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.memory import load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._asked import meaning_words, embed_queries, asked_vector

emb = load_embedder("use")


def unit(x):
    return x / np.linalg.norm(x)


def phrase_vec(t):
    ws = meaning_words(t)
    if not ws:
        return emb.embed_query(t)
    s, p = embed_queries(emb, [t, " ".join(ws)])
    return unit(unit(s) + unit(p)).astype(np.float32)


for name in ("pooled", "s"):
    data = pickle.loads(open(f"/tmp/lo27/words/{name}.pkl", "rb").read())
    store = open_store(f"/tmp/lo28/{name}.db")
    res = {"base": [], "phrase": []}
    for c in data:
        res["base"].append(rf._at5(c, rf.BASE))
        v = phrase_vec(c["text"])
        vec = store.vector_search(emb.model_id, v, c["chain"], rf.POOL)
        need = [m.memory_id for m in vec if m.memory_id not in c["memories"]]
        cc = dict(c)
        cc["vector"] = vec
        mem = dict(c["memories"])
        mem.update(store.get_many(need))
        cc["memories"] = mem
        vs = dict(c["vectors"])
        vs.update(store.vectors_of(emb.model_id, need))
        cc["vectors"] = vs
        sess = dict(c["session"])
        for i in need:
            sess[i] = str(mem[i].provenance["session"])
        cc["session"] = sess
        res["phrase"].append(rf._at5(cc, rf.BASE))
        if res["base"][-1] != res["phrase"][-1]:
            print(name, c["kind"], c["text"][:70], res["base"][-1], "->", res["phrase"][-1])
    for k, v in res.items():
        a = np.array(v)
        print(name, k, "any@5 %.4f all@5 %.4f" % tuple(a.mean(0)), flush=True)
    store.close()
