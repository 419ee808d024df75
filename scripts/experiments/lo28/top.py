"""Issue 23 (lo28): Print the first 12 hits of the questions containing the given strings (keyword / vector ranks, evidence marked).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import pickle, sys

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
qs = sys.argv[1:]
for c in data:
    if not any(q in c["text"] for q in qs):
        continue
    print("Q", c["text"], c["evidence"])
    kw = {m.memory_id: (r, m.score) for r, m in enumerate(c["keyword"])}
    vec = {m.memory_id: (r, m.score) for r, m in enumerate(c["vector"])}
    for h in rf.rank(c, rf.BASE, 12):
        d = c["dia"][h.memory.id]
        print(
            f"  {'*' if set(d) & set(c['evidence']) else ' '} {h.score:.3f} kw{kw.get(h.memory.id, ('-', 0))[0]} vec{vec.get(h.memory.id, ('-', 0))[0]} {d} {h.memory.content[:110]}"
        )
