"""Issue 23 (lo28): The keyword signal's weight times the share of the question's terms (IDF-weighted or not) its best match holds.

Reads scripts/recall_folds.py's collected lists of (--cache /tmp/lo27/words: made by lo27's code, it reproduces main a3c941b's
LoCoMo / pooled / S figures exactly)
and copies of its SQLite stores in /tmp/lo28; run from the worktree with .venv/bin/python.
"""

import pickle, sys, math
from collections import defaultdict, Counter

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.memory._rank import Candidates, rank_candidates, held_terms
from shitsuji.memory._recall import RecallWeights
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
    per = defaultdict(list)
    kinds = defaultdict(list)
    rows = []
    for c in data:
        x = f(c)
        w = replace(rf.BASE, keyword_weight=rf.BASE.keyword_weight * x) if x is not None else rf.BASE
        found = {d for h in rf.rank(c, w, 10) for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
        rows.append(r)
    m = lambda v: sum(v) / len(v)
    print(
        f"{name:30s}: {m(rows):.4f}  "
        + " ".join(f"{f} {m(x):.4f}" for f, x in sorted(per.items()))
        + "  | "
        + " ".join(f"{k[:6]} {m(x):.3f}" for k, x in sorted(kinds.items())),
        flush=True,
    )


run("base", lambda c: None)
run("kw × idf-cov of best", lambda c: feat(c, 1, True))
run("kw × cov of best", lambda c: feat(c, 1, False))
run("kw × idf-cov best of 3", lambda c: feat(c, 3, True))
run("kw × sqrt idf-cov", lambda c: feat(c, 1, True) ** 0.5)
run("kw × 2·idf-cov", lambda c: 2 * feat(c, 1, True))
