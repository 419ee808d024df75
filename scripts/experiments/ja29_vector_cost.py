"""Issue 23 (ja29): CPU per question vector over ja-mixed's 45 questions (``question_vector``, ``use``).

Cold: the word vectors' cache cleared before each pass (every word new); warm: kept. Median of 5
passes, ms of CPU a question. Run base and branch alternately:

    PYTHONPATH=/tmp/wt-9a2da6b/src .venv/bin/python scripts/experiments/ja29_vector_cost.py
    .venv/bin/python scripts/experiments/ja29_vector_cost.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from shitsuji.memory import USEEmbedder
from shitsuji.memory._asked import WORD_VECTORS
from shitsuji.memory._embedding import question_vector

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [
    json.loads(line)["query"] for line in (ROOT / "src/shitsuji/bench/data/ja-mixed/queries-dev.jsonl").open()
]


def main() -> None:
    use = USEEmbedder()
    for q in QUESTIONS:  # the model and the analyser warmed
        question_vector(use, q)
    out = {}
    for kind in ("cold", "warm"):
        passes = []
        for _ in range(5):
            if kind == "cold":
                WORD_VECTORS._kept.clear()
            start = time.process_time()
            for q in QUESTIONS:
                question_vector(use, q)
            passes.append((time.process_time() - start) * 1000 / len(QUESTIONS))
        out[kind] = round(statistics.median(passes), 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
