"""CPU cost of an embedder on the Japanese sets' texts (issue 23, e5ja): per stored text and per question.

    .venv/bin/python scripts/experiments/e5ja_cost.py EMBEDDER [PASSES]

Stored texts: every 4th of the six packaged sets' facts and 200 distractors (86), embedded in batches of 32
(``embed_documents``, as ``index_pending`` does). Questions: every query of the six sets through
``question_vector`` (the vector recall searches with: the text, its kanji spelling, its words), the
word cache cleared each pass (every question new). CPU time (``process_time``), median of the passes;
the first pass (the model's load, the analyser's) is left out. One JSON line.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import load_embedder
from shitsuji.memory._asked import WORD_VECTORS
from shitsuji.memory._embedding import question_vector

DATA = Path(__file__).resolve().parents[2] / "src/shitsuji/bench/data"
SETS = ["ja-fresh", "ja-held", "ja-recall", "ja-unread", "ja-blind", "ja-mixed"]


def main() -> None:
    name = sys.argv[1]
    passes = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    embedder = load_embedder(name)
    facts = [
        json.loads(line)["content"]
        for s in SETS
        for line in (DATA / s / "facts-dev.jsonl").read_text().splitlines()
        if line.strip()
    ]
    docs = (facts + list(synthetic_memories(200, seed=5)))[::4]  # every 4th: 86 texts
    queries = [
        json.loads(line)["query"]
        for s in SETS
        for line in (DATA / s / "queries-dev.jsonl").read_text().splitlines()
        if line.strip()
    ]
    per_doc, per_query = [], []
    for n in range(passes + 1):
        t = time.process_time()
        for i in range(0, len(docs), 32):
            embedder.embed_documents(docs[i : i + 32])
        d = (time.process_time() - t) / len(docs)
        WORD_VECTORS._kept.clear()
        t = time.process_time()
        for q in queries:
            question_vector(embedder, q)
        qq = (time.process_time() - t) / len(queries)
        if n:
            per_doc.append(d)
            per_query.append(qq)
    print(
        json.dumps(
            {
                "embedder": name,
                "docs": len(docs),
                "queries": len(queries),
                "ms_per_doc": round(1000 * statistics.median(per_doc), 2),
                "ms_per_question": round(1000 * statistics.median(per_query), 2),
                "passes_doc": [round(1000 * x, 2) for x in per_doc],
                "passes_q": [round(1000 * x, 2) for x in per_query],
            }
        )
    )


if __name__ == "__main__":
    main()
