"""Issue 23 (lo28): Speaker-aware: a memory whose leading 'Name:' the question names, x (1 + v) after ranking or on its vector score.

Reads scripts/recall_folds.py's collected lists of (--cache /tmp/lo27/words: made by lo27's code, it reproduces main a3c941b's
LoCoMo / pooled / S figures exactly)
and copies of its SQLite stores in /tmp/lo28; run from the worktree with .venv/bin/python.
"""

import pickle, sys, re
from collections import defaultdict
from dataclasses import replace

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._records import Hit

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
LEAD = re.compile(r"^([A-Z][\w'-]*):")


def named(c, mem):
    m = LEAD.match(mem.content)
    return bool(m) and re.search(r"\b" + re.escape(m.group(1)) + r"\b", c["text"]) is not None


def run(v, where):
    per = defaultdict(list)
    kinds = defaultdict(list)
    rows = []
    for c in data:
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
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
        rows.append(r)
    m = lambda v: sum(v) / len(v)
    print(
        f"{where} v {v}: {m(rows):.4f}  "
        + " ".join(f"{f} {m(x):.4f}" for f, x in sorted(per.items()))
        + "  | "
        + " ".join(f"{k[:6]} {m(x):.3f}" for k, x in sorted(kinds.items())),
        flush=True,
    )
    return per


run(0, "final")
for where in ("final", "vector"):
    for v in (0.1, 0.2, 0.3, 0.5):
        run(v, where)
