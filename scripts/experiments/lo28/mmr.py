"""Issue 23 (lo28): Maximal marginal relevance over the ranked hits (score / best - lambda * max cosine with the hits chosen).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())


def mmr(hits, vectors, lam, depth, k=10, mode="cos"):
    pool = hits[:depth]
    top = pool[0].score or 1.0
    chosen = []
    rest = list(pool)
    while rest and len(chosen) < k:
        best = None
        bv = -1e9
        for h in rest:
            v = vectors.get(h.memory.id)
            sim = max(
                (float(v @ vectors[c.memory.id]) for c in chosen if v is not None and c.memory.id in vectors),
                default=0.0,
            )
            val = h.score / top - lam * sim
            if val > bv:
                bv = val
                best = h
        chosen.append(best)
        rest.remove(best)
    return chosen


def run(lam, depth):
    def found_of(c):
        hits = rf.rank(c, rf.BASE, depth)
        top = mmr(hits, c["vectors"], lam, depth) if lam else hits[:10]
        found = {d for h in top for d in c["dia"][h.memory.id]}
        return found

    return report(f"lam {lam} depth {depth}", data, found_of)


run(0, 30)
for depth in (20, 40):
    for lam in (0.1, 0.2, 0.3, 0.5):
        run(lam, depth)
