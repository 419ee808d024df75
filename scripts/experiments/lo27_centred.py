"""Issue 23 (lo27): the vector list searched with scope-centred cosines, on recall_folds.py's lists.

USE's vectors of short chat turns sit in a narrow cone: "What is Caroline's relationship status?"
is nearest (0.47–0.48) to greetings that name Caroline. Subtracting the scope's mean vector from
the question (and the turns) before the cosine is the usual cure for that anisotropy. Each variant
searches the scope's stored vectors exactly (lo23e's ``Scopes``), keeps the keyword list, and
ranks with the product's ``rank_candidates``:

- ``raw``: the same exact search without centring (the control: must equal the collected lists);
- ``query``: (q - mu) . d — one subtraction at query time, the stored vectors as they are;
- ``both``: cos(q - mu, d - mu).

    .venv/bin/python scripts/experiments/lo27_centred.py --cache /tmp/lo27/base
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import recall_folds as rf
from lo23e_signals import Scopes, widen

from shitsuji.memory._records import Hit
from shitsuji.memory._slots import Match
from shitsuji.memory._text import STOP_WORDS

N = 300
_WORD = re.compile(r"[A-Za-z][A-Za-z'+-]*")


def content_words(text: str, names: bool = False) -> list[str]:
    """The question's words that are neither stop words nor capitalised (names), as written."""
    out = []
    for n, m in enumerate(_WORD.finditer(text)):
        w = m.group(0)
        if (
            (n and w[0].isupper() and not names)
            or w.lower() in STOP_WORDS
            or (w.lower().endswith("'s") and w[0].isupper())
        ):
            continue
        out.append(w.lower())
    return list(dict.fromkeys(out))


class Centred:
    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def of(self, scope: str) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        ids, matrix = self.scopes.of(scope)
        if scope not in self.cache:
            mu = matrix.mean(axis=0)
            centred = matrix - mu
            centred /= np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)
            self.cache[scope] = (mu, centred)
        mu, centred = self.cache[scope]
        return ids, matrix, mu, centred

    def search(self, c: dict[str, Any], how: str) -> list[Match]:
        ids, matrix, mu, centred = self.of(c["chain"][0])
        q = self.scopes.query(c["text"])
        if how in ("words", "qwords", "cwords", "qwords_all", "qsum"):
            words = content_words(c["text"], names=how == "qwords_all")
            if words:
                wv = np.mean([self.scopes.query(x) for x in words], axis=0)
                wv = wv / np.linalg.norm(wv) * (len(words) if how == "qsum" else 1)
                q = wv if how == "words" else (q + wv) / np.linalg.norm(q + wv)
            if how == "cwords":
                q = q - mu
            s = matrix @ q
        elif how == "raw":
            s = matrix @ q
        elif how == "query":
            s = matrix @ (q - mu)
        else:
            qc = (q - mu) / np.linalg.norm(q - mu)
            s = centred @ qc
        top = np.argsort(-s)[:N]
        return [Match(ids[i], float(s[i])) for i in top]


def hits_of(c: dict[str, Any], cen: Centred, how: str | None, k: int, w: Any = rf.BASE) -> list[Hit]:
    if how is None:
        return rf.rank(c, w, k), c  # type: ignore[return-value]
    found = cen.search(c, how)
    c2 = widen(c, cen.scopes, found)
    n = max(rf.BASE.candidates, 3 * k)
    from shitsuji.memory._rank import Candidates, rank_candidates

    cand = Candidates(
        c["text"],
        c["asked"],
        {"keyword": c["keyword"][:n], "vector": found[:n]},
        c2["memories"],
        c2["vectors"],
        c["chain"],
    )
    return rank_candidates(cand, c["clock"], w)[:k], c2  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lo27/base"))
    parser.add_argument("--sets", default="locomo,pooled,s")
    parser.add_argument("--weights", default="0.4")
    parser.add_argument("hows", nargs="*", default=["collected", "raw", "query", "both"])
    args = parser.parse_args()
    for name in args.sets.split(","):
        data = pickle.loads((args.cache / f"{name}.pkl").read_bytes())
        cen = Centred(Scopes(args.cache / f"{name}.db"))
        for how0 in [f"{h}@{v}" for h in args.hows for v in args.weights.split(",")]:
            how, v = how0.split("@")
            w = replace(rf.BASE, vector_weight=float(v))
            h = None if how == "collected" else how
            if name == "locomo":
                per: dict[str, list[float]] = defaultdict(list)
                kinds: dict[str, list[float]] = defaultdict(list)
                for c in data:
                    hits, c2 = hits_of(c, cen, h, 10, w)
                    dia = c2["dia"]
                    found = {d for x in hits for d in dia[x.memory.id]}
                    r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
                    per[c["fold"]].append(r)
                    kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
                allr = [x for v in per.values() for x in v]
                print(
                    f"locomo {how0:>13} {rf._mean(allr):.4f} ("
                    + " ".join(f"{f} {rf._mean(v):.4f}" for f, v in per.items())
                    + ") "
                    + " ".join(f"{k[:5]} {rf._mean(v):.3f}" for k, v in sorted(kinds.items())),
                    flush=True,
                )
            else:
                fa: dict[int, list[float]] = defaultdict(list)
                fl: dict[int, list[float]] = defaultdict(list)
                for c in data:
                    hits, c2 = hits_of(c, cen, h, 100, w)
                    ses = c2["session"]
                    top = set(rf._sessions([ses[x.memory.id] for x in hits])[:5])
                    fa[c["fold"]].append(float(bool(c["answers"] & top)))
                    fl[c["fold"]].append(float(c["answers"] <= top))
                a = [x for v in fa.values() for x in v]
                b = [x for v in fl.values() for x in v]
                print(
                    f"{name} {how0:>13} any@5 {rf._mean(a):.4f} all@5 {rf._mean(b):.4f} all folds "
                    + " ".join(f"{rf._mean(fl[f]):.3f}" for f in sorted(fl))
                    + " any folds "
                    + " ".join(f"{rf._mean(fa[f]):.3f}" for f in sorted(fa)),
                    flush=True,
                )


if __name__ == "__main__":
    main()
