"""Issue 23 (lo28): Maximal marginal relevance over the ranked hits (score / best - lambda * max cosine with the hits chosen).

Reads scripts/recall_folds.py's collected lists of (--cache /tmp/lo27/words: made by lo27's code, it reproduces main a3c941b's
LoCoMo / pooled / S figures exactly)
and copies of its SQLite stores in /tmp/lo28; run from the worktree with .venv/bin/python.
"""

import pickle, sys
from collections import defaultdict
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

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
    per = defaultdict(list)
    kinds = defaultdict(list)
    rows = []
    for c in data:
        hits = rf.rank(c, rf.BASE, depth)
        top = mmr(hits, c["vectors"], lam, depth) if lam else hits[:10]
        found = {d for h in top for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
        rows.append(r)
    m = lambda v: sum(v) / len(v)
    print(
        f"lam {lam} depth {depth}: {m(rows):.4f}  "
        + " ".join(f"{f} {m(v):.4f}" for f, v in sorted(per.items()))
        + "  | "
        + " ".join(f"{k[:6]} {m(v):.3f}" for k, v in sorted(kinds.items())),
        flush=True,
    )


run(0, 30)
for depth in (20, 40):
    for lam in (0.1, 0.2, 0.3, 0.5):
        run(lam, depth)
