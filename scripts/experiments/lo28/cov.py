"""Issue 23 (lo28): The keyword signal's weight times the share of the question's terms (IDF-weighted or not) its best match holds.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys, math
from collections import Counter

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report
from shitsuji.memory._rank import held_terms
from dataclasses import replace

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
out, qv = pickle.load(open("/tmp/lo28/vecs.pkl", "rb"))
df = {}
N = {}
for conv, o in out.items():
    cnt = Counter()
    for m in o["memories"].values():
        cnt.update(held_terms(m))
    df[conv] = cnt
    N[conv] = len(o["memories"])


def idf(conv, t):
    n = df[conv].get(t, 0)
    return math.log(1 + (N[conv] - n + 0.5) / (n + 0.5))


def feat(c, top=1, use_idf=True):
    asked = set(c["asked"])
    if not asked or not c["keyword"]:
        return 1.0
    tot = sum(idf(c["fold"], t) if use_idf else 1 for t in asked)
    best = 0
    for m in c["keyword"][:top]:
        h = held_terms(c["memories"][m.memory_id])
        best = max(best, sum((idf(c["fold"], t) if use_idf else 1) for t in asked & h) / tot)
    return best


def run(name, f):
    def found_of(c):
        x = f(c)
        w = replace(rf.BASE, keyword_weight=rf.BASE.keyword_weight * x) if x is not None else rf.BASE
        found = {d for h in rf.rank(c, w, 10) for d in c["dia"][h.memory.id]}
        return found

    return report(f"{name:30s}", data, found_of)


run("base", lambda c: None)
run("kw × idf-cov of best", lambda c: feat(c, 1, True))
run("kw × cov of best", lambda c: feat(c, 1, False))
run("kw × idf-cov best of 3", lambda c: feat(c, 3, True))
run("kw × sqrt idf-cov", lambda c: feat(c, 1, True) ** 0.5)
run("kw × 2·idf-cov", lambda c: 2 * feat(c, 1, True))
