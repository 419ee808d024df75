"""LongMemEval all@5 misses taken apart (issue 23, ls28): each answer session's place, its best turn's
place in the fused, keyword and vector lists, and the first five sessions.

    .venv/bin/python scripts/experiments/ls28_misses.py --cache /tmp/ls28/base [--set s|pooled]
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recall_folds import BASE, rank


def _sessions(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def show(c: dict[str, Any]) -> None:
    hits = rank(c, BASE, 100)
    order = _sessions([c["session"][h.memory.id] for h in hits])
    kw = [m.memory_id for m in c["keyword"]]
    vec = [m.memory_id for m in c["vector"]]
    print(f"\n[{c['kind']}] {c['text']}  (fold {c['fold']}, asked {c['clock']:%Y-%m-%d})")
    print("  top5:", " | ".join(s[:14] for s in order[:5]))
    for s in sorted(c["answers"]):
        place = order.index(s) + 1 if s in order else None
        turns = [i for i, sid in c["session"].items() if sid == s]
        best = min(
            turns,
            key=lambda i: next((n for n, h in enumerate(hits) if h.memory.id == i), 999),
            default=None,
        )
        if best is None:
            print(f"  {s[:14]}: no turn in either list")
            continue
        f = next((n + 1 for n, h in enumerate(hits) if h.memory.id == best), None)
        k = kw.index(best) + 1 if best in kw else None
        v = vec.index(best) + 1 if best in vec else None
        vk = min((vec.index(i) + 1 for i in turns if i in vec), default=None)
        kk = min((kw.index(i) + 1 for i in turns if i in kw), default=None)
        text = c["memories"][best].content[:110].replace("\n", " ")
        print(
            f"  {s[:14]}: session {place}, best turn fused {f} kw {k} vec {v} (session best kw {kk} vec {vk}) :: {text}"
        )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/ls28/base"))
    p.add_argument("--set", default="s")
    a = p.parse_args()
    data = pickle.loads((a.cache / f"{a.set}.pkl").read_bytes())
    for c in data:
        hits = rank(c, BASE, 100)
        top = set(_sessions([c["session"][h.memory.id] for h in hits])[:5])
        if not c["answers"] <= top:
            show(c)


if __name__ == "__main__":
    main()
