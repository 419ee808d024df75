"""Issue 23 (lo28): Pooled LongMemEval and LongMemEval_S with the question vector 'sentence + words as one phrase'.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import widened
from shitsuji.memory import load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._asked import meaning_words, embed_queries

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
        cc = widened(c, store, emb.model_id, {"vector": vec})
        res["phrase"].append(rf._at5(cc, rf.BASE))
        if res["base"][-1] != res["phrase"][-1]:
            print(name, c["kind"], c["text"][:70], res["base"][-1], "->", res["phrase"][-1])
    for k, v in res.items():
        a = np.array(v)
        print(name, k, "any@5 %.4f all@5 %.4f" % tuple(a.mean(0)), flush=True)
    store.close()
