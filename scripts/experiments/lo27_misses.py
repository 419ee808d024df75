"""Issue 23 (lo27): LoCoMo dev evidence turns outside the first 10, taken apart by why.

Reads ``scripts/recall_folds.py``'s collected lists (run it once with the same ``--cache``) and, for
every evidence turn, records its place in the product's ranking (``rank_candidates``), in the
keyword list and in the vector list (300 each), whether the turn shares a content word with the
question (speakers' names and said-day terms aside), and whose turn it is.

    .venv/bin/python scripts/experiments/lo27_misses.py --cache /tmp/lo27/base
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_folds as rf

from shitsuji.bench import locomo as lc
from shitsuji.memory._text import terms


def place(ids: list[str], dia: dict[str, list[str]], e: str) -> int | None:
    for r, i in enumerate(ids):
        if e in dia.get(i, []):
            return r
    return None


def bucket(r: int | None) -> str:
    if r is None:
        return "none"
    if r < 10:
        return "<10"
    if r < 20:
        return "10-19"
    if r < 60:
        return "20-59"
    return "60+"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lo27/base"))
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    parser.add_argument("--list", action="store_true", help="print every missed turn")
    args = parser.parse_args()
    data: list[dict[str, Any]] = pickle.loads((args.cache / "locomo.pkl").read_bytes())
    texts: dict[str, dict[str, Any]] = {}
    speakers: dict[str, set[str]] = defaultdict(set)
    for s in lc.load(args.data / "locomo" / "locomo-dev.json"):
        for t in lc.turns(s):
            texts[f"{s['sample_id']}/{t['dia_id']}"] = t
            speakers[s["sample_id"]].add(t["speaker"])
    table: Counter[tuple[str, ...]] = Counter()
    per_kind: Counter[str] = Counter()
    for c in data:
        kind = rf.LOCOMO_KINDS[c["kind"]]
        hits = rf.rank(c, rf.BASE, 300)
        fused = [h.memory.id for h in hits]
        kw = [m.memory_id for m in c["keyword"]]
        vec = [m.memory_id for m in c["vector"]]
        names = {n for n in speakers[c["fold"]]}
        name_terms = {t for n in names for t in terms(n)}
        asked = set(terms(c["text"])) - name_terms
        named = [n for n in names if n.lower() in c["text"].lower()]
        for e in c["evidence"]:
            per_kind[kind] += 1
            r = place(fused, c["dia"], e)
            if r is not None and r < 10:
                continue
            turn = texts[f"{c['fold']}/{e}"]
            mine = set(terms(turn["text"]))
            shared = sorted(asked & mine)
            whose = "named" if turn["speaker"] in named else ("other" if named else "no name")
            rk, rv = place(kw, c["dia"], e), place(vec, c["dia"], e)
            table[(kind, bucket(r), "words" if shared else "no words", whose)] += 1
            table[("ALL", bucket(r), "", "")] += 1
            table[("ALL", "", "words" if shared else "no words", "")] += 1
            table[("ALL", "", "", whose)] += 1
            table[("ALL", "kw " + bucket(rk), "vec " + bucket(rv), "")] += 1
            if args.list:
                print(
                    f"[{c['fold']} {kind}] {c['text']}\n   {e} fused {r} kw {rk} vec {rv} shared {shared} "
                    f"{whose}: {turn['speaker']}: {turn['text'][:150]}"
                )
    print("evidence turns per kind:", dict(per_kind))
    for key, n in sorted(table.items()):
        print(f"{n:5d}  {' | '.join(key)}")


if __name__ == "__main__":
    main()
