import json, time, statistics
from pathlib import Path
from shitsuji.memory import USEEmbedder
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import kanji_spelling
use = USEEmbedder()
D = Path(__file__).resolve().parents[2] / "src/shitsuji/bench/data"
qs = [json.loads(l)["query"] for s in ["ja-fresh", "ja-held", "ja-recall"] for l in open(D / s / "queries-dev.jsonl") if l.strip()]
qs += [json.loads(l)["query"] for l in open(Path(__file__).resolve().parents[3] / "shared/data/ja/queries-dev.jsonl") if l.strip()]
affected = [q for q in qs if kanji_spelling(q)]
print(f"{len(affected)} of {len(qs)} questions have a kanji spelling")
use.embed_query("warm up"); question_vector(use, "なっとう")
for name, qset in [("affected", affected), ("all", qs)]:
    runs = {"typed": [], "question_vector": []}
    for _ in range(5):
        for label, f in [("typed", use.embed_query), ("question_vector", lambda q: question_vector(use, q))]:
            kanji_spelling.cache_clear()
            t = time.process_time()
            for q in qset: f(q)
            runs[label].append((time.process_time() - t) / len(qset) * 1000)
    print(name, {k: round(statistics.median(v), 3) for k, v in runs.items()}, "ms CPU a question (median of 5 passes)")
