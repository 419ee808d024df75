"""Issue 23 (lo28): a share of the first 10 kept for each list — the fused ranking's first 10 - q, then the vector
list's best q not yet in (q = 0..5), and a plain round-robin of the two lists.

Reads scripts/recall_folds.py's collected lists (--cache /tmp/lo27/words).
"""

from pathlib import Path
import pickle, sys

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())


def score(pick, name):
    def found_of(c):
        ids = pick(c)[:10]
        found = {d for i in ids for d in c["dia"][i]}
        return found

    return report(f"{name:28s}", data, found_of)


def quota(q, source="vector"):
    def pick(c):
        fused = [h.memory.id for h in rf.rank(c, rf.BASE, 10)]
        out = fused[: 10 - q]
        for m in c[source]:
            if len(out) >= 10:
                break
            if m.memory_id not in out:
                out.append(m.memory_id)
        for i in fused:
            if len(out) >= 10:
                break
            if i not in out:
                out.append(i)
        return out

    return pick


def robin(c):
    out = []
    for a, b in zip(c["keyword"], c["vector"]):
        for i in (a.memory_id, b.memory_id):
            if i not in out:
                out.append(i)
        if len(out) >= 10:
            break
    return out


for q in range(0, 6):
    score(quota(q), f"fused 10-{q} + vector {q}")
for q in (1, 2, 3):
    score(quota(q, "keyword"), f"fused 10-{q} + keyword {q}")
score(robin, "round-robin keyword/vector")
