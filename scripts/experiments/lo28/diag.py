"""Issue 23 (lo28): The English vector weight per question: grid and per-question oracle (the ceiling of any fusion re-weighting).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import pickle, sys
from dataclasses import replace
from collections import defaultdict

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())


def score(w, mod=None):
    per = defaultdict(list)
    rows = []
    for c in data:
        cc = mod(c) if mod else c
        found = {d for h in rf.rank(cc, w, 10) for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        rows.append(r)
    return sum(rows) / len(rows), {f: round(sum(v) / len(v), 4) for f, v in per.items()}, rows


base = score(rf.BASE)
print("base", base[:2])
grid = {}
for v in (0.1, 0.2, 0.4, 0.7, 1.0, 1.5, 2.5, 5, 100):
    s = score(replace(rf.BASE, vector_weight=v))
    grid[v] = s[2]
    print("vw", v, s[:2])
import numpy as np

M = np.array(list(grid.values()))
print("oracle over vw", M.max(0).mean())
