"""Issue 23 (lo28): Speaker-aware: a memory whose leading 'Name:' the question names, x (1 + v) after ranking or on its vector score.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys, re
from dataclasses import replace

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report
from shitsuji.memory._rank import Candidates, rank_candidates

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
LEAD = re.compile(r"^([A-Z][\w'-]*):")


def named(c, mem):
    m = LEAD.match(mem.content)
    return bool(m) and re.search(r"\b" + re.escape(m.group(1)) + r"\b", c["text"]) is not None


def run(v, where):
    def found_of(c):
        n = max(rf.BASE.candidates, 30)
        ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
        if where == "vector" and v:
            ranked["vector"] = sorted(
                (
                    (m._replace(score=m.score * (1 + v)) if named(c, c["memories"][m.memory_id]) else m)
                    for m in ranked["vector"]
                ),
                key=lambda m: -m.score,
            )
        found_c = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
        hits = rank_candidates(found_c, c["clock"], rf.BASE)
        if where == "final" and v:
            hits = sorted(
                (replace(h, score=h.score * (1 + v)) if named(c, h.memory) else h for h in hits),
                key=lambda h: -h.score,
            )
        found = {d for h in hits[:10] for d in c["dia"][h.memory.id]}
        return found

    return report(f"{where} v {v}", data, found_of)


run(0, "final")
for where in ("final", "vector"):
    for v in (0.1, 0.2, 0.3, 0.5):
        run(v, where)
