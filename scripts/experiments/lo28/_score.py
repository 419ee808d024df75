"""Issue 23 (lo28): the experiments' one scoring loop — LoCoMo turn R@10 of a variant, overall, per conversation
(the left-out folds) and per question kind."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

LOCOMO_KINDS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def report(
    name: str, data: list[dict[str, Any]], found_of: Callable[[dict[str, Any]], set[str]], width: int = 30
) -> list[float]:
    """Print the variant's R@10 (``found_of``: a question's collected lists -> the turn ids in its first 10)."""
    per: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, list[float]] = defaultdict(list)
    rows = []
    for c in data:
        found = found_of(c)
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[LOCOMO_KINDS[c["kind"]]].append(r)
        rows.append(r)

    def mean(v: list[float]) -> float:
        return sum(v) / len(v)

    print(
        f"{name:{width}s} {mean(rows):.4f}  "
        + " ".join(f"{f} {mean(x):.4f}" for f, x in sorted(per.items()))
        + "  | "
        + " ".join(f"{k[:6]} {mean(x):.3f}" for k, x in sorted(kinds.items())),
        flush=True,
    )
    return rows


def widened(c: dict[str, Any], store: Any, model: str, lists: dict[str, list[Any]]) -> dict[str, Any]:
    """A copy of question ``c``'s collected lists with ``lists`` in place (new searches), the rows and vectors of the
    memories they add read from ``store``, and their turn ids (LoCoMo) or sessions (LongMemEval)."""
    need = [m.memory_id for matches in lists.values() for m in matches if m.memory_id not in c["memories"]]
    memories = {**c["memories"], **store.get_many(need)}
    cc = {**c, **lists, "memories": memories, "vectors": {**c["vectors"], **store.vectors_of(model, need)}}
    if "dia" in c:
        cc["dia"] = {**c["dia"], **{i: [memories[i].provenance["dia_id"]] for i in need}}
    if "session" in c:
        cc["session"] = {**c["session"], **{i: str(memories[i].provenance["session"]) for i in need}}
    return cc
