"""LongMemEval's preference questions taken apart (issue 23, pf29): each evidence turn's place in the
fused, keyword and vector lists, its BM25 score and cosine, the words it shares with the question, and
the first five sessions with their best turn.

    .venv/bin/python scripts/experiments/pf29_preference.py --cache /tmp/pf29/base [--set s|pooled]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pf29_rules import VARIANTS, research
from recall_folds import BASE, rank

from shitsuji.memory._open import open_store
from shitsuji.memory._text import terms

DATA = Path("/work/shared/data/longmemeval")


def evidence_of(path: Path) -> dict[str, set[tuple[str, int]]]:
    """question text -> its (session, turn) pairs marked has_answer."""
    out: dict[str, set[tuple[str, int]]] = {}
    for q in json.loads(path.read_text()):
        marks = {
            (sid, n)
            for sid, s in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True)
            for n, t in enumerate(s)
            if t.get("has_answer")
        }
        out[q["question"]] = marks
    return out


def show(c: dict[str, Any], marks: set[tuple[str, int]], w: Any = BASE) -> None:
    hits = rank(c, w, 100)
    fused = [h.memory.id for h in hits]
    order = list(dict.fromkeys(c["session"][i] for i in fused))
    kw = {m.memory_id: (n + 1, m.score) for n, m in enumerate(c["keyword"])}
    vec = {m.memory_id: (n + 1, m.score) for n, m in enumerate(c["vector"])}
    asked = set(c["asked"])
    print(f"\n[{c['kind']}] {c['text']}  (fold {c['fold']}) asked terms {sorted(asked)}")
    for n, s in enumerate(order[:5]):
        best = next(i for i in fused if c["session"][i] == s)
        m = c["memories"][best]
        print(
            f"  top{n + 1} {s[:16]} {'*' if s in c['answers'] else ' '} kw {kw.get(best)} vec {vec.get(best)} :: {m.content[:100]!r}"
        )
    for s in sorted(c["answers"]):
        place = order.index(s) + 1 if s in order else None
        print(f"  answer {s[:16]}: session place {place}")
        for i, m in c["memories"].items():
            if c["session"][i] != s:
                continue
            turn = m.provenance.get("turn")
            star = "*" if (s, turn) in marks else " "
            f = fused.index(i) + 1 if i in fused else None
            k, v = kw.get(i), vec.get(i)
            shared = sorted(asked & set(terms(m.content)))
            print(
                f"   {star}t{turn:>2} fused {f} kw {k[0] if k else None} ({k[1]:.2f}) vec {v[0] if v else None} ({v[1] if v else 0:.3f})".replace(
                    "(0.00)", ""
                )
                if k
                else f"   {star}t{turn:>2} fused {f} kw None vec {v[0] if v else None} ({v[1] if v else 0:.3f})",
                "shared",
                shared,
                "::",
                m.content[:90].replace("\n", " "),
            )
    best_vec = c["vector"][0]
    print(
        f"  best cosine of any turn {best_vec.score:.3f}; 10th {c['vector'][9].score:.3f}; 50th {c['vector'][49].score:.3f}"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/pf29/base"))
    p.add_argument("--set", default="s")
    p.add_argument("--kind", default="single-session-preference")
    p.add_argument("--variant", default="base")
    a = p.parse_args()
    data = pickle.loads((a.cache / f"{a.set}.pkl").read_bytes())
    marks = evidence_of(DATA / ("lme-s-dev.json" if a.set == "s" else "lme-oracle-dev.json"))
    store = open_store(a.cache / f"{a.set}.db") if a.variant != "base" else None
    for c in data:
        if c["kind"] == a.kind:
            if store is not None:
                kw, vec, _ = VARIANTS[a.variant]
                c = research(c, store, kw, vec)
            show(c, marks[c["text"]])


if __name__ == "__main__":
    main()
