"""Issue 23 (lo28): the two +0.003 changes together — turn vectors with two previous and two following turns, and the
question's words embedded as one phrase.

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import var

from shitsuji.memory import load_embedder
from shitsuji.memory._asked import embed_queries, meaning_words

emb = load_embedder("use")
texts = sorted({c["text"] for c in var.data})
unit = lambda x: x / np.linalg.norm(x)
for t in texts:
    ws = meaning_words(t)
    if ws:
        s, p = embed_queries(emb, [t, " ".join(ws)])
        var.qv[t] = unit(unit(s) + unit(p)).astype(np.float32)
var.evaluate("phrase, stored vectors", var.dotfn({conv: o["stored"] for conv, o in var.out.items()}))
var.evaluate("phrase, prev 2 + next 2", var.dotfn(var.build(1.0, 2, 2)))
