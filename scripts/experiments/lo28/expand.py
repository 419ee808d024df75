"""Issue 23 (lo28): Word-neighbour query expansion: each question word's nearest words in the conversation's vocabulary (USE word
vectors) searched as keywords, in the query or as a third fused list.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

from pathlib import Path
import pickle, sys, re
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import report, widened
from shitsuji.memory import load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._asked import meaning_words, embed_queries
from shitsuji.memory._text import terms, STOP_WORDS
from shitsuji.memory._rank import Candidates, rank_candidates

emb = load_embedder("use")
data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
out, qv = pickle.load(open("/tmp/lo28/vecs.pkl", "rb"))
store = open_store("/tmp/lo28/locomo.db")
vocab = {}
for conv, o in out.items():
    words = sorted(
        {
            w.lower()
            for t in o["turns"]
            for w in re.findall(r"[A-Za-z][a-z']+", t["text"])
            if w.lower() not in STOP_WORDS and len(w) > 2
        }
    )
    V = np.asarray(embed_queries(emb, words), dtype=np.float32)
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    vocab[conv] = (words, V)
    print(conv, len(words), flush=True)
qwords = sorted({w for c in data for w in meaning_words(c["text"])})
QW = dict(zip(qwords, np.asarray(embed_queries(emb, qwords), dtype=np.float32)))


OOV = False


def expansion(c, n, floor):
    words, V = vocab[c["fold"]]
    extra = []
    for w in meaning_words(c["text"]):
        if OOV and any(t in held[c["fold"]] for t in terms(w)):
            continue
        q = QW[w] / np.linalg.norm(QW[w])
        s = V @ q
        for i in np.argsort(-s)[: n + 1]:
            if s[i] >= floor and words[i] != w:
                extra.append(words[i])
    return [t for t in dict.fromkeys(t for w in extra for t in terms(w)) if t not in c["asked"]]


def run(n, floor, mode):
    def found_of(c):
        ex = expansion(c, n, floor)
        if ex:
            if mode == "same":
                kw = store.keyword_search(list(c["asked"]) + ex, c["chain"], 300)
                lists = {"keyword": kw}
            else:
                lists = {"keyword": c["keyword"], "expanded": store.keyword_search(ex, c["chain"], 300)}
            cc = widened(c, store, emb.model_id, lists)
            mem, vs, dia = cc["memories"], cc["vectors"], cc["dia"]
            nn = 60
            ranked = {"vector": c["vector"][:nn], **{k: v[:nn] for k, v in lists.items()}}
            if mode != "same":
                import shitsuji.memory._rank as R

                orig = R._signal_weights
                R._signal_weights = lambda j, w: {
                    "keyword": w.keyword_weight,
                    "vector": w.vector_weight,
                    "expanded": float(mode),
                }
                hits = rank_candidates(
                    Candidates(c["text"], c["asked"], ranked, mem, vs, c["chain"]), c["clock"], rf.BASE
                )
                R._signal_weights = orig
            else:
                hits = rank_candidates(
                    Candidates(c["text"], c["asked"] + ex, ranked, mem, vs, c["chain"]), c["clock"], rf.BASE
                )
            found = {d for h in hits[:10] for d in dia[h.memory.id]}
        else:
            found = {d for h in rf.rank(c, rf.BASE, 10) for d in c["dia"][h.memory.id]}
        return found

    return report(f"n {n} floor {floor} {mode}", data, found_of)


from shitsuji.memory._rank import held_terms

held = {conv: set().union(*(held_terms(m) for m in o["memories"].values())) for conv, o in out.items()}
if len(sys.argv) > 1 and sys.argv[1] == "oov":
    OOV = True
    for c in data:
        if any(
            q in c["text"]
            for q in (
                "relationship status",
                "attributes describe",
                "traits",
                "European",
                "political",
                "patriotic",
            )
        ):
            print(c["text"], expansion(c, 2, 0.0))
    for n, floor in ((1, 0.0), (2, 0.0), (3, 0.0), (1, 0.5)):
        for mode in ("same", "0.2", "0.4"):
            run(n, floor, mode)
    raise SystemExit
c0 = [c for c in data if "done with her family" in c["text"]][0]
print(expansion(c0, 3, 0.5))
for n, floor in ((2, 0.6), (3, 0.5)):
    for mode in ("same", "0.2", "0.4"):
        run(n, floor, mode)
