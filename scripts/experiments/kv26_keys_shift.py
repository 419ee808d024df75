"""Issue 23 (kv26): how far a keyed fact's vector moves from its own text's (cosine), over the keyed facts of
ja-fresh, ja-recall and ja-held (docs/benchmarks.md, kv26). ``.venv/bin/python scripts/experiments/kv26_keys_shift.py``"""

import json, numpy as np
from pathlib import Path
from shitsuji.memory import USEEmbedder
from shitsuji.memory._embedding import embed_rows

e = USEEmbedder()
cos = []
for name in ["ja-fresh", "ja-recall", "ja-held"]:
    d = Path("src/shitsuji/bench/data") / name
    facts = {json.loads(l)["id"]: json.loads(l)["content"] for l in open(d / "facts-dev.jsonl")}
    keys = {json.loads(l)["id"]: json.loads(l)["keys"] for l in open(d / "keys-dev.jsonl")}
    rows = [(facts[i], None, k) for i, k in keys.items() if i in facts]
    keyed = embed_rows(e, rows)
    plain = embed_rows(e, [(c, None, ()) for c, _, _ in rows])
    cos += [float(a[0] @ b[0]) for a, b in zip(keyed, plain)]
print(
    len(cos),
    "cos(own, keyed) min %.3f p10 %.3f median %.3f" % (min(cos), np.percentile(cos, 10), np.median(cos)),
)
