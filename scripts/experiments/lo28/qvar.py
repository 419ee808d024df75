"""Issue 23 (lo28): The question's vector made otherwise: names stripped / 'they', the words as one phrase, thirds.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import sys, re
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts/experiments/lo28")
sys.path.insert(0, "/work/wt-lo27/scripts")
import var
from shitsuji.memory import load_embedder
from shitsuji.memory._asked import meaning_words, embed_queries

emb = load_embedder("use")
S = {conv: o["stored"] for conv, o in var.out.items()}


def unit(x):
    return x / np.linalg.norm(x)


texts = sorted({c["text"] for c in var.data})
NAME = re.compile(r"(?<!^)\b[A-Z][\w'+-]*")


def strip(q):
    s = NAME.sub("", q)
    return re.sub(r"\s+", " ", s).strip()


def they(q):
    s = re.sub(r"(?<!^)\b[A-Z][\w+-]*'s\b", "their", q)
    s = NAME.sub("they", s)
    return s


variants = {}
sent = dict(zip(texts, embed_queries(emb, texts)))
stripped = dict(zip(texts, embed_queries(emb, [strip(t) for t in texts])))
theyd = dict(zip(texts, embed_queries(emb, [they(t) for t in texts])))
words = {t: meaning_words(t) for t in texts}
allw = sorted({w for ws in words.values() for w in ws})
wv = dict(zip(allw, embed_queries(emb, allw)))
phr = dict(zip(texts, embed_queries(emb, [" ".join(words[t]) or t for t in texts])))


def combo(s, mode="mean"):
    out = {}
    for t in texts:
        ws = words[t]
        if not ws:
            out[t] = unit(s[t])
            continue
        m = np.mean([wv[w] for w in ws], 0) if mode == "mean" else phr[t]
        out[t] = unit(unit(s[t]) + unit(m))
    return out


def ev(name, Q):
    var.evaluate(
        name,
        lambda conv, q, Q=Q: None,
    )


def make(Q):
    # evaluate uses qv[c["text"]] passed in as q; override by text lookup
    return Q


for name, Q in [
    ("shipped (sentence+words)", combo(sent)),
    ("names stripped + words", combo(stripped)),
    ("names->they + words", combo(theyd)),
    ("sentence + words as one phrase", combo(sent, "phrase")),
    ("stripped sentence alone", {t: unit(stripped[t]) for t in texts}),
]:
    var.qv.update({t: Q[t].astype(np.float32) for t in texts})
    var.evaluate(name, var.dotfn(S))
print(strip("What is Caroline's relationship status?"), "|", they("What is Caroline's relationship status?"))


def combo2(s, parts):
    out = {}
    for t in texts:
        ws = words[t]
        if not ws:
            out[t] = unit(s[t])
            continue
        v = unit(s[t])
        if "mean" in parts:
            v = v + unit(np.mean([wv[w] for w in ws], 0))
        if "phrase" in parts:
            v = v + unit(phr[t])
        if "halfeach" in parts:
            v = unit(s[t]) + unit(unit(np.mean([wv[w] for w in ws], 0)) + unit(phr[t]))
        out[t] = unit(v)
    return out


for name, Q in [
    ("sentence+mean+phrase (thirds)", combo2(sent, {"mean", "phrase"})),
    ("sentence + (mean+phrase)/2", combo2(sent, {"halfeach"})),
    ("they + phrase", combo2(theyd, {"phrase"})),
    ("they + mean + phrase", combo2(theyd, {"mean", "phrase"})),
]:
    var.qv.update({t: Q[t].astype(np.float32) for t in texts})
    var.evaluate(name, var.dotfn(S))
