"""Issue 23 (lo28): one pooled LongMemEval question's first sessions with the shipped question vector and with the
words as one phrase (the question lost at all@5 by the phrase; `lme.py`)."""

from pathlib import Path
import pickle, sys
import numpy as np

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _score import widened
from shitsuji.memory import load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._asked import meaning_words, embed_queries

emb = load_embedder("use")
unit = lambda x: x / np.linalg.norm(x)
data = pickle.loads(open("/tmp/lo27/words/pooled.pkl", "rb").read())
store = open_store("/tmp/lo28/pooled.db")
for c in data:
    if sys.argv[1] not in c["text"]:
        continue
    ws = meaning_words(c["text"])
    print(c["text"], ws, "answers", sorted(c["answers"]))
    s, p = embed_queries(emb, [c["text"], " ".join(ws)])
    v = unit(unit(s) + unit(p)).astype(np.float32)
    vec = store.vector_search(emb.model_id, v, c["chain"], rf.POOL)
    cc = widened(c, store, emb.model_id, {"vector": vec})
    for name, x in (("shipped", c), ("phrase", cc)):
        order = rf._sessions([x["session"][h.memory.id] for h in rf.rank(x, rf.BASE, 100)])[:8]
        print(name, [("*" if o in c["answers"] else "") + o[-12:] for o in order])
