"""Issue 23 (lo28): Turn vectors made otherwise (own only, context weight, previous 1 / 3, following turns, max / mean of two vectors):
the vector list searched exactly over the conversation, ranked by the product's rank_candidates.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report
from shitsuji.memory._slots import Match

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
out, qv = pickle.load(open("/tmp/lo28/vecs.pkl", "rb"))


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def ctxmean(o, n, back=2, fwd=0):
    T = o["turns"]
    own = o["own"]
    idx = [j for j in range(max(n - back, 0), n)] + [j for j in range(n + 1, min(n + 1 + fwd, len(T)))]
    idx = [j for j in idx if T[j]["session"] == T[n]["session"]]
    if not idx:
        return None
    m = np.mean(own[idx], 0)
    return m / np.linalg.norm(m)


def build(cw=1.0, back=2, fwd=0):
    V = {}
    for conv, o in out.items():
        rows = []
        for n in range(len(o["turns"])):
            v = o["own"][n].copy()
            m = ctxmean(o, n, back, fwd)
            if m is not None:
                v = v + cw * m
            rows.append(v / np.linalg.norm(v))
        V[conv] = np.array(rows, dtype=np.float32)
    return V


def evaluate(name, scorefn, w=rf.BASE, verbose=True):
    def found_of(c):
        o = out[c["fold"]]
        s = scorefn(c["fold"], qv[c["text"]])
        order = np.argsort(-s)[:300]
        vec = [Match(o["ids"][i], float(s[i]), 0) for i in order]
        cc = dict(c)
        cc["vector"] = vec
        mem = dict(c["memories"])
        mem.update({m.memory_id: o["memories"][m.memory_id] for m in vec})
        cc["memories"] = mem
        vs = dict(c["vectors"])
        vs.update({o["ids"][i]: o["stored"][i] for i in order})
        cc["vectors"] = vs
        found = {
            d
            for h in rf.rank(cc, w, 10)
            for d in c["dia"].get(h.memory.id, [o["turns"][o["ids"].index(h.memory.id)]["dia_id"]])
        }
        return found

    return report(f"{name:40s}", data, found_of)


def dotfn(V):
    return lambda conv, q: V[conv] @ q


if __name__ == "__main__":
    S = {conv: o["stored"] for conv, o in out.items()}
    evaluate("stored", dotfn(S))
    own = {conv: unit(o["own"]) for conv, o in out.items()}
    evaluate("own only", dotfn(own))
    for cw in (0.5, 0.7, 1.5):
        evaluate(f"ctx w {cw}", dotfn(build(cw)))
    evaluate("prev 1", dotfn(build(1.0, 1)))
    evaluate("prev 3", dotfn(build(1.0, 3)))
    evaluate("prev2+next1", dotfn(build(1.0, 2, 1)))
    evaluate("prev2+next2", dotfn(build(1.0, 2, 2)))
    evaluate("max(own, stored)", lambda conv, q: np.maximum(own[conv] @ q, S[conv] @ q))
    evaluate("mean(own, stored) cos", lambda conv, q: (own[conv] @ q + S[conv] @ q) / 2)
