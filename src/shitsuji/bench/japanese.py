"""Japanese household sets: per-user (and shared) facts, per-user queries with the ids that answer them.

Each user's facts go to ``household/bench/user/<user>``, shared ones to
``household/bench``; every query is recalled from the asking user's scope. ``hit@k``
counts queries with an expected fact in the top k; ``cross_user_hits`` counts hits from
outside the asker's lineage (another user's facts), which must be zero. The development
set lives in ``../shared/data/ja``; ``data/ja-recall`` in this package is a harder one
written for this project (temporal, shared, cross-lingual, paraphrased).
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import UserInputError
from ..memory import Embedder, NewMemory, lineage
from ._common import bench_engine
from .latency import synthetic_memories

HOUSEHOLD = "household/bench"
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)  # a fixed "now", so ages (and recency) are the same every run


def _jsonl(path: Path, fields: dict[str, type]) -> list[dict[str, Any]]:
    """The file's objects, each with ``fields`` of those types (a shared fact needs no ``user``); a
    one-line error otherwise."""
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except UnicodeDecodeError as exc:
        raise UserInputError(f"{path} is not a JSONL file: byte {exc.start} is not UTF-8 text") from None
    except RecursionError:
        raise UserInputError(f"{path} is not a JSONL file: a line is nested too deeply") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise UserInputError(f"cannot read {path}: {exc}") from exc
    shape = ", ".join(f"{name} ({kind.__name__})" for name, kind in fields.items())
    for number, row in enumerate(rows, start=1):
        needed = {
            n: t
            for n, t in fields.items()
            if not (n == "user" and isinstance(row, dict) and row.get("shared"))
        }
        if not isinstance(row, dict) or not all(isinstance(row.get(n), t) for n, t in needed.items()):
            raise UserInputError(
                f"{path}: object {number} is not in the Japanese set's format (needs {shape})"
            )
    return rows


def run_japanese(
    directory: Path,
    *,
    embedder: str | Embedder,
    k: int = 3,
    distractors: int = 0,
    database: str | None = None,
    keys: Path | None = None,
) -> dict[str, Any]:
    """hit@k (and hit@1) overall and per query ``class``; leaks are hits outside the asker's lineage.

    Optional fields: a fact with ``"shared": true`` goes to the household scope
    (``household/bench``, every member's ancestor); ``days_ago`` dates it before the fixed
    "now" of the run (facts are remembered oldest first, as they would have been said); a
    query's ``class`` (paraphrase, temporal, shared, cross-lingual …) groups the figures.
    ``distractors`` synthetic facts (``latency.synthetic_memories``) are added to every
    user's scope, so the answer has to win against noise. ``keys`` (JSONL of ``{"id", "keys"}``)
    gives facts search keys, remembered as a model's ``remember`` call gives them.
    """
    facts = _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
    keys_of = {row["id"]: row["keys"] for row in _jsonl(keys, {"id": str, "keys": list})} if keys else {}
    facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
    queries = _jsonl(directory / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
    leaks = 0
    misses: list[str] = []
    by_class: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    with bench_engine(embedder, clock=lambda: NOW, database=database) as engine:
        fact_of_memory: dict[str, str] = {}
        for fact in facts:
            scope = HOUSEHOLD if fact.get("shared") else f"{HOUSEHOLD}/user/{fact['user']}"
            result = engine.remember(
                fact["content"],
                scope,
                category=fact.get("category", "misc"),
                created_at=NOW - timedelta(days=float(fact.get("days_ago", 0))),
                keys=keys_of.get(fact["id"]),
            )
            fact_of_memory[result.memory.id] = fact["id"]
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
            scope = f"{HOUSEHOLD}/user/{query['user']}"
            found = engine.recall(query["query"], scope, k=k)
            leaks += sum(1 for h in found if h.memory.scope not in lineage(scope))
            ids = [fact_of_memory.get(h.memory.id) for h in found]
            hit = bool(set(ids) & set(query["expected"]))
            by_class[query.get("class", "all")].append((hit, bool(ids) and ids[0] in query["expected"]))
            if not hit:
                misses.append(query["query"])
    every = [r for rows in by_class.values() for r in rows]
    return {
        "k": k,
        "embedder": engine.embedder.model_id,
        "keys": sum(1 for f in facts if f["id"] in keys_of),
        "queries": len(queries),
        "hit": _share(every, 0),
        "hit_at_1": _share(every, 1),
        "by_class": {
            name: {"n": len(rows), "hit": _share(rows, 0), "hit_at_1": _share(rows, 1)}
            for name, rows in sorted(by_class.items())
        },
        "cross_user_hits": leaks,
        "misses": misses,
    }


def _share(rows: list[tuple[bool, bool]], column: int) -> float:
    return round(sum(r[column] for r in rows) / len(rows), 4) if rows else 0.0
