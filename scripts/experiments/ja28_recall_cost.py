"""Issue 23 (ja28): recall CPU per Japanese question, this code or the base's (run it with
``PYTHONPATH=<base>/src`` for the base, alternating). ja-fresh and ja-held with 200 distractors a
member, every question of both asked 5 times; per pass the analyser's and the word caches are
cleared ("cold": each question as if new) or kept ("warm"). Prints medians in ms CPU a question.

    .venv/bin/python scripts/experiments/ja28_recall_cost.py
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from pathlib import Path

import shitsuji
from shitsuji.bench._common import bench_engine
from shitsuji.bench.japanese import HOUSEHOLD, NOW, _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import NewMemory, _readings

D = Path(__file__).resolve().parents[2] / "src/shitsuji/bench/data"


def clear() -> None:
    for name in ("content_words", "reading_terms", "kanji_spelling"):
        getattr(_readings, name).cache_clear()
    from shitsuji.memory import _asked

    # one cache of word vectors, English and Japanese (a3c941b named it ``_WORD_VECTORS``)
    getattr(_asked, "WORD_VECTORS", getattr(_asked, "_WORD_VECTORS", None))._kept.clear()


def main() -> None:
    print("code:", shitsuji.__file__)
    with bench_engine("use", clock=lambda: NOW) as engine:
        queries = []
        for s in ("ja-fresh", "ja-held"):
            for f in _jsonl(D / s / "facts-dev.jsonl", {"id": str, "user": str, "content": str}):
                scope = HOUSEHOLD if f.get("shared") else f"{HOUSEHOLD}/user/{f['user']}"
                engine.remember(f["content"], scope, created_at=NOW - timedelta(days=float(f.get("days_ago", 0))))
            queries += _jsonl(D / s / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
        users = sorted({q["user"] for q in queries})
        engine.add_many(
            NewMemory(content=t, scope=f"{HOUSEHOLD}/user/{u}", created_at=NOW - timedelta(days=i % 400))
            for u in users
            for i, t in enumerate(synthetic_memories(200, seed=len(u)))
        )
        engine.index_pending()
        engine.recall("ウォームアップ", f"{HOUSEHOLD}/user/{users[0]}", k=3)
        for mode in ("cold", "warm"):
            per = []
            for _ in range(5):
                if mode == "cold":
                    clear()
                t = time.process_time()
                for q in queries:
                    engine.recall(q["query"], f"{HOUSEHOLD}/user/{q['user']}", k=3)
                per.append((time.process_time() - t) / len(queries) * 1000)
            print(f"{mode}: {statistics.median(per):.2f} ms CPU a question (passes {[round(x, 2) for x in per]})", flush=True)


if __name__ == "__main__":
    main()
