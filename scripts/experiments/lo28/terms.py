"""Issue 23 (lo28): Which of a question's terms each of its first keyword hits holds (indexed, and in its own text).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import pickle, sys

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.memory._rank import held_terms

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
for c in data:
    if not any(q in c["text"] for q in sys.argv[1:]):
        continue
    print(c["text"], c["asked"])
    for m in c["keyword"][:6]:
        mem = c["memories"][m.memory_id]
        h = held_terms(mem)
        own = set(rf.query_terms(mem.content))
        print(
            f"  {m.score:.2f} {[t for t in c['asked'] if t in h]} own:{[t for t in c['asked'] if t in own]} {mem.content[:70]}"
        )
