"""Ranking rules for questions that ask for several things, on every dev set's collected lists (issue 23, ls28).

Each variant re-ranks ``recall_folds``' collected lists; LoCoMo turn R@10 per conversation, pooled
LongMemEval any@5 / all@5 per fold, LongMemEval_S any@5 / all@5, and the questions each variant changes.

    .venv/bin/python scripts/experiments/ls28_rules.py --cache /tmp/ls28/base [variant ...]
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recall_folds import BASE as SHIPPED

from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._recall import RecallWeights
from shitsuji.memory._records import Hit

BASE = replace(SHIPPED, several_by_meaning=False)  # the ranking of main a3c941b
Ranker = Callable[[dict[str, Any], int], list[Hit]]

SEVERAL = re.compile(
    r"\b(?:how many|how much|in total|total|all the|altogether|both|which \w+ first|order)\b"
    r"|何回|何個|何人|何日|いくつ|全部|全て|すべて|合計|どちらが先|順番",
    re.IGNORECASE,
)

WIDER = re.compile(
    SEVERAL.pattern + r"|\bwhich\b[^?]*\b(?:first|earlier|later|before|after)\b|\bevery\b|\bbetween\b",
    re.IGNORECASE,
)


def plain(w: RecallWeights) -> Ranker:
    def run(c: dict[str, Any], k: int) -> list[Hit]:
        n = max(w.candidates, k * 3)
        ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
        found = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
        return rank_candidates(found, c["clock"], w)[:k]

    return run


def when_several(pattern: re.Pattern[str], w_several: RecallWeights) -> Ranker:
    base, other = plain(BASE), plain(w_several)

    def run(c: dict[str, Any], k: int) -> list[Hit]:
        return (other if pattern.search(c["text"]) else base)(c, k)

    return run


def session_of(c: dict[str, Any], memory_id: str) -> str:
    if "session" in c:
        return str(c["session"][memory_id])
    return str(c["dia"][memory_id][0].split(":")[0]) if c["dia"][memory_id] else memory_id


def together(w: RecallWeights, only_several: bool) -> Ranker:
    """Each turn's score plus the best score of another turn of its session (measured two best turns, in recall)."""
    base = plain(w)
    if only_several:
        base = when_several(SEVERAL, w)

    def run(c: dict[str, Any], k: int) -> list[Hit]:
        if only_several and not SEVERAL.search(c["text"]):
            return plain(BASE)(c, k)
        hits = base(c, 10_000)
        best: dict[str, list[float]] = defaultdict(list)
        for h in hits:
            best[session_of(c, h.memory.id)].append(h.score)

        def score(h: Hit) -> float:
            mine = best[session_of(c, h.memory.id)]
            other = (
                mine[1] if mine[0] == h.score and len(mine) > 1 else (mine[0] if mine[0] != h.score else 0.0)
            )
            return h.score + other

        return sorted(hits, key=score, reverse=True)[:k]

    return run


VARIANTS: dict[str, Ranker] = {
    "together-several": together(BASE, True),
    "several-v1.0+together": together(replace(BASE, vector_weight=1.0), True),
    "together-all": together(BASE, False),
    "several-v1.0-flat": when_several(SEVERAL, replace(BASE, vector_weight=1.0, standout=False)),
    "several-v1.25": when_several(SEVERAL, replace(BASE, vector_weight=1.25)),
    "several-v2.0": when_several(SEVERAL, replace(BASE, vector_weight=2.0)),
    "base": plain(BASE),
    "several-v1.0": when_several(SEVERAL, replace(BASE, vector_weight=1.0)),
    "several-v0.8": when_several(SEVERAL, replace(BASE, vector_weight=0.8)),
    "wider-v1.0": when_several(WIDER, replace(BASE, vector_weight=1.0)),
    "all-v1.0": plain(replace(BASE, vector_weight=1.0)),
}


def sessions(c: dict[str, Any], hits: list[Hit]) -> list[str]:
    return list(dict.fromkeys(c["session"][h.memory.id] for h in hits))


def lme(
    data: list[dict[str, Any]], run: Ranker
) -> tuple[dict[int, list[tuple[float, float]]], list[tuple[float, float]]]:
    folds: dict[int, list[tuple[float, float]]] = defaultdict(list)
    rows = []
    for c in data:
        top = set(sessions(c, run(c, 100))[:5])
        row = (float(bool(c["answers"] & top)), float(c["answers"] <= top))
        folds[c["fold"]].append(row)
        rows.append(row)
    return folds, rows


def locomo(data: list[dict[str, Any]], run: Ranker) -> tuple[dict[str, list[float]], list[float]]:
    folds: dict[str, list[float]] = defaultdict(list)
    rows = []
    for c in data:
        found = {d for h in run(c, 10) for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        folds[c["fold"]].append(r)
        rows.append(r)
    return folds, rows


def mean(v: list[float]) -> float:
    return sum(v) / len(v) if v else 0.0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/ls28/base"))
    p.add_argument("--no-locomo", action="store_true")
    p.add_argument("variants", nargs="*")
    a = p.parse_args()
    names = a.variants or list(VARIANTS)
    sets = {n: pickle.loads((a.cache / f"{n}.pkl").read_bytes()) for n in ("s", "pooled")}
    if not a.no_locomo:
        sets["locomo"] = pickle.loads((a.cache / "locomo.pkl").read_bytes())
    base_rows: dict[str, Any] = {}
    for name in ["base", *[n for n in names if n != "base"]]:
        run = VARIANTS[name]
        out = [f"{name:>16}"]
        for s in ("s", "pooled"):
            folds, rows = lme(sets[s], run)
            any5, all5 = mean([r[0] for r in rows]), mean([r[1] for r in rows])
            per = " ".join(f"{mean([r[1] for r in f]):.3f}" for _, f in sorted(folds.items()))
            out.append(f"{s} {any5:.4f}/{all5:.4f} (all@5 folds {per})")
            if name == "base":
                base_rows[s] = rows
            else:
                for c, r0, r1 in zip(sets[s], base_rows[s], rows, strict=True):
                    if r0 != r1:
                        print(f"   {name} {s}: {r0} -> {r1}  {c['text'][:90]}")
        if "locomo" in sets:
            folds, rows = locomo(sets["locomo"], run)
            per = " ".join(f"{f} {mean(v):.4f}" for f, v in folds.items())
            out.append(f"LoCoMo R@10 {mean(rows):.4f} ({per})")
        print("  ".join(out), flush=True)


if __name__ == "__main__":
    main()
