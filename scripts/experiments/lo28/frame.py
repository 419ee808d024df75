"""Issue 23 (lo28): Question-frame words ('kind of', 'likely', 'ways') dropped from the keyword query.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys, re

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report
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
    changed = sum(1 for c in data if frame_terms(c["text"], pats) & set(c["asked"]))

    def found_of(c):
        drop = frame_terms(c["text"], pats) & set(c["asked"])
        if drop:
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
        return found

    return report(f"{name:28s} ({changed} q)", data, found_of)


run("none", [])
for k, p in FRAMES.items():
    run(k, [p])
run("all three", list(FRAMES.values()))
