"""Every Japanese data text's kanji spelling, and sha256 of its question vector and its stored
vectors (use; hash), on the side PYTHONPATH gives: JSON to compare base and branch byte for byte."""
import glob, hashlib, json, sys
import numpy as np
from shitsuji.memory import USEEmbedder
from shitsuji.memory._embedders import HashEmbedder
from shitsuji.memory import _embedding
from shitsuji.memory._readings import kanji_spelling
from shitsuji.bench.web import CHAT_LINES
texts = []
for f in sorted(glob.glob("/work/wt-ja27/src/shitsuji/bench/data/ja-*/*.jsonl") + glob.glob("/work/shared/data/ja/*.jsonl")):
    for line in open(f):
        row = json.loads(line)
        for key in ("query", "content", "text", "fact"):
            if isinstance(row.get(key), str):
                texts.append(row[key])
texts += [f"{c}（{i}）" for i, c in enumerate(CHAT_LINES)] + ["When is my birthday?", "What activities has Melanie done with her family?", "Where does Ken work?", "ｶﾀｶﾅのなっとう㍻", "なっとう なっとう", "", "the zero: \u3000"]
texts = list(dict.fromkeys(texts))
def qv(e, t):
    try:
        return _embedding.question_vector(e, t, words=True)
    except TypeError:  # the base: the engine chose
        from shitsuji.memory._asked import asked_vector, meaning_words
        return asked_vector(e, t) if meaning_words(t) else _embedding.question_vector(e, t)
h = lambda a: hashlib.sha256(np.ascontiguousarray(a, dtype=np.float32).tobytes()).hexdigest()[:16]
out = {"n": len(texts), "spelled": {t: kanji_spelling(t) for t in texts}}
for name, e in (("hash", HashEmbedder()), ("use", USEEmbedder())):
    out[name + "_question"] = {t: h(qv(e, t)) for t in texts if t}
    rows = [(t, texts[i - 1] if i else None, ["納豆", "natto"] if i % 3 == 0 else []) for i, t in enumerate(texts) if t]
    out[name + "_rows"] = [h(m) for m in _embedding.embed_rows(e, rows)]
    out[name + "_docs"] = h(e.embed_documents([t for t in texts if t]))
    zero = np.zeros((2, 8), dtype=np.float32)
print(json.dumps(out, ensure_ascii=False, indent=0, sort_keys=True))
