"""Issue 23 (lo28): LoCoMo dev ceilings — R@10 if the first 10 held every evidence turn that is among the candidates
(each list's first n, n = 60 as recall asks, and 300), and how many evidence turns each list has in its first 10.

Reads scripts/recall_folds.py's collected lists (--cache /tmp/lo27/words: made by lo27's code, it reproduces main
a3c941b's LoCoMo figures exactly).
"""

import pickle, sys

sys.path.insert(0, "/work/wt-lo27/scripts")

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
for n in (10, 20, 60, 300):
    rows = {"keyword": [], "vector": [], "either": []}
    for c in data:
        ev = set(c["evidence"])
        kw = {d for m in c["keyword"][:n] for d in c["dia"][m.memory_id]} & ev
        vec = {d for m in c["vector"][:n] for d in c["dia"][m.memory_id]} & ev
        for name, got in (("keyword", kw), ("vector", vec), ("either", kw | vec)):
            rows[name].append(min(len(got), 10) / len(ev))
    print(f"first {n:3d} of each list: " + "  ".join(f"{k} {sum(v) / len(v):.4f}" for k, v in rows.items()))
