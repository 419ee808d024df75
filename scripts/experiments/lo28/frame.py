"""Issue 23 (lo28): Question-frame words ('kind of', 'likely', 'ways') dropped from the keyword query.

Reads scripts/recall_folds.py's collected lists of (--cache /tmp/lo27/words: made by lo27's code, it reproduces main a3c941b's
LoCoMo / pooled / S figures exactly)
and copies of its SQLite stores in /tmp/lo28; run from the worktree with .venv/bin/python.
"""

import pickle, sys, re
from collections import defaultdict

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.memory._open import open_store
from shitsuji.memory._text import terms
from shitsuji.memory._rank import Candidates, rank_candidates

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
store = open_store("/tmp/lo28/locomo.db")
FRAMES = {
    "kind/type/sort of": r"\b(kinds?|types?|sorts?)\s+of\b",
    "likely": r"\blikely\b",
    "ways": r"\bways?\b",
}


def frame_terms(text, pats):
    out = set()
    for p in pats:
        for m in re.finditer(p, text, re.I):
            out.update(terms(m.group(1) if m.groups() else m.group(0)))
    return out


def run(name, pats):
    per = defaultdict(list)
    kinds = defaultdict(list)
    rows = []
    changed = 0
    for c in data:
        drop = frame_terms(c["text"], pats) & set(c["asked"])
        if drop:
            changed += 1
            asked = [t for t in c["asked"] if t not in drop]
            kw = store.keyword_search(asked, c["chain"], 300) if asked else []
            need = [m.memory_id for m in kw if m.memory_id not in c["memories"]]
            mem = dict(c["memories"])
            mem.update(store.get_many(need))
            vs = dict(c["vectors"])
            vs.update(store.vectors_of("use-multilingual-v3", need))
            dia = dict(c["dia"])
            dia.update({i: [mem[i].provenance["dia_id"]] for i in need})
            ranked = {"keyword": kw[:60], "vector": c["vector"][:60]}
            hits = rank_candidates(
                Candidates(c["text"], asked, ranked, mem, vs, c["chain"]), c["clock"], rf.BASE
            )[:10]
            found = {d for h in hits for d in dia[h.memory.id]}
        else:
            found = {d for h in rf.rank(c, rf.BASE, 10) for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
        rows.append(r)
    m = lambda v: sum(v) / len(v)
    print(
        f"{name:28s} ({changed} q): {m(rows):.4f}  "
        + " ".join(f"{f} {m(x):.4f}" for f, x in sorted(per.items()))
        + "  | "
        + " ".join(f"{k[:6]} {m(x):.3f}" for k, x in sorted(kinds.items())),
        flush=True,
    )


run("none", [])
for k, p in FRAMES.items():
    run(k, [p])
run("all three", list(FRAMES.values()))
