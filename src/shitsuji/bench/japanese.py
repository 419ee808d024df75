"""The small Japanese set: per-user facts, per-user queries with the ids that answer them.

Each user's facts go to ``household/bench/user/<user>``; every query is recalled from the
asking user's scope. ``hit@k`` counts queries with an expected fact in the top k;
``cross_user_hits`` counts hits that belong to another user, which must be zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import UserInputError
from ..memory import Embedder
from ._common import bench_engine


def _jsonl(path: Path, fields: dict[str, type]) -> list[dict[str, Any]]:
    """The file's objects, each with ``fields`` of those types; a one-line error otherwise."""
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
        if not isinstance(row, dict) or not all(isinstance(row.get(n), t) for n, t in fields.items()):
            raise UserInputError(
                f"{path}: object {number} is not in the Japanese set's format (needs {shape})"
            )
    return rows


def run_japanese(directory: Path, *, embedder: str | Embedder, k: int = 3) -> dict[str, Any]:
    facts = _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
    queries = _jsonl(directory / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
    hits = cross = 0
    misses: list[str] = []
    with bench_engine(embedder) as engine:
        fact_of_memory: dict[str, str] = {}
        for fact in facts:
            scope = f"household/bench/user/{fact['user']}"
            result = engine.remember(fact["content"], scope, category=fact.get("category", "misc"))
            fact_of_memory[result.memory.id] = fact["id"]
        for query in queries:
            scope = f"household/bench/user/{query['user']}"
            found = engine.recall(query["query"], scope, k=k)
            cross += sum(1 for h in found if h.memory.scope != scope)
            ids = [fact_of_memory[h.memory.id] for h in found]
            if set(ids) & set(query["expected"]):
                hits += 1
            else:
                misses.append(query["query"])
    return {
        "k": k,
        "embedder": engine.embedder.model_id,
        "queries": len(queries),
        "hit": round(hits / len(queries), 4) if queries else 0.0,
        "cross_user_hits": cross,
        "misses": misses,
    }
