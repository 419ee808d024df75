"""Issue 23 (lt30): the Japanese sets' candidate lists, collected as scripts/recall_folds.py collects LoCoMo's.

Each set is ingested as ``bench japanese`` ingests it (``run_japanese``'s steps: facts oldest first, the
household's shared facts one level up, ``--distractors`` synthetic facts per user; the dev set without
distractors, as HELPERS' command runs it), and each query's keyword and vector lists (300 each) are kept
with the facts that answer it. The re-scorer experiment (``rescore.py``) ranks them again with the product's
``rank_candidates``; each set is one fold (a whole question group left out).

    .venv/bin/python scripts/experiments/lt30/collect_ja.py --cache /tmp/lt30/base --data /work/shared/data
"""

from __future__ import annotations

import argparse
import pickle
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import recall_folds as rf

from shitsuji.bench.japanese import HOUSEHOLD, NOW, _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import MemoryEngine, NewMemory, load_embedder
from shitsuji.memory._open import open_store

PACKAGE = Path(__file__).resolve().parents[3] / "src" / "shitsuji" / "bench" / "data"
SETS = ("ja-held", "ja-fresh", "ja-recall", "ja-unread", "ja-blind", "ja-mixed")


def collect(directory: Path, db: Path, distractors: int, name: str) -> list[dict[str, Any]]:
    facts = _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
    facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
    queries = _jsonl(directory / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
    if db.exists():
        db.unlink()
    store = open_store(db)
    engine = MemoryEngine(store, load_embedder("use"), clock=lambda: NOW)
    out = []
    try:
        fact_of: dict[str, str] = {}
        for fact in facts:
            scope = HOUSEHOLD if fact.get("shared") else f"{HOUSEHOLD}/user/{fact['user']}"
            result = engine.remember(
                fact["content"],
                scope,
                category=fact.get("category", "misc"),
                created_at=NOW - timedelta(days=float(fact.get("days_ago", 0))),
            )
            fact_of[result.memory.id] = fact["id"]
        users = sorted({q["user"] for q in queries})
        engine.add_many(
            NewMemory(
                content=text, scope=f"{HOUSEHOLD}/user/{user}", created_at=NOW - timedelta(days=i % 400)
            )
            for user in users
            for i, text in enumerate(synthetic_memories(distractors, seed=len(user)))
        )
        engine.index_pending()
        for query in queries:
            lists = rf._lists(engine, f"{HOUSEHOLD}/user/{query['user']}", query["query"])
            lists.update(
                fold=name,
                expected=set(query["expected"]),
                kind=query.get("class", "all"),
                fact={i: fact_of.get(i) for i in lists["memories"]},
            )
            out.append(lists)
    finally:
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lt30/base"))
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    args = parser.parse_args()
    sets = {"ja-dev": (args.data / "ja", 0)} | {s: (PACKAGE / s, 200) for s in SETS}
    every = []
    for name, (directory, distractors) in sets.items():
        every += collect(directory, args.cache / f"{name}.db", distractors, name)
        print(name, len(every), flush=True)
    (args.cache / "ja.pkl").write_bytes(pickle.dumps(every))


if __name__ == "__main__":
    main()
