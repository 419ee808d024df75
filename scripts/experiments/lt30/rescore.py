"""Issue 23 (lt30): a learned re-scorer over recall's fused first 60, scored on left-out folds.

Reads the candidate lists of scripts/recall_folds.py (LoCoMo, pooled LongMemEval, LongMemEval_S) and of
``collect_ja.py`` (the seven Japanese sets) from CACHE, ranks each question with the product's
``rank_candidates`` (``recall_folds.rank``: the pool recall fuses), and describes each of the first
``TOP`` hits by features recall has or can compute without another embedding of the rows
(``features``). A linear model over them (pairwise logistic, numpy; ``fit``) re-orders those ``TOP``
hits; the rest stay behind in the product's order.

Folds (each trained on every other fold of every set, scored on the one left out):
LoCoMo by conversation (conv-26 / 30 / 41); LongMemEval by question, 5 folds over the question texts, so a
question is left out of pooled and S together (the two sets ask the same questions); Japanese by set.

    .venv/bin/python scripts/experiments/lt30/rescore.py --cache /tmp/lt30/base [--only NAMES] [--pairs]
"""

from __future__ import annotations

import argparse
import math
import pickle
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import recall_folds as rf

from shitsuji.memory import load_embedder
from shitsuji.memory._asked import embed_queries
from shitsuji.memory._asked_ja import question_words
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._kana import fold_kana
from shitsuji.memory._rank import Candidates, held_terms, rank_candidates
from shitsuji.memory._readings import kanji_spelling
from shitsuji.memory._recall import levels
from shitsuji.memory._text import CJK, terms

TOP = 60
NAMES = [
    "score",  # the product's score / the question's best
    "log_rank",  # log(1 + place in the product's ranking)
    "kw_level",  # min-max level in the keyword list (0: not in it)
    "vec_level",  # ... in the vector list
    "cos_sentence",  # cosine with the question's sentence vector
    "cos_words",  # ... with its content words' mean (the sentence's when it has none)
    "cos_asked",  # ... with the vector recall searched with
    "idf_cover",  # IDF-weighted share of the question's terms the row holds (context included)
    "idf_own",  # ... in its own text only
    "cover",  # plain share
    "log_len",  # log(1 + terms of its own text)
    "names",  # share of the question's capitalised words and numbers in its text
    "recency",  # 0.5 ** (age / 90 days)
    "prev_score",  # the product's score (/ best) of the row said just before it, when among the TOP
    "next_score",  # ... of the row said just after it
    "cos_top",  # cosine with the product's first hit
]
_NAMEISH = re.compile(r"\b[A-Z][A-Za-z]+|\d+")


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


class Asked:
    """The question's three vectors (sentence, words' mean, the searched one), embedded once per text."""

    def __init__(self) -> None:
        self.emb = load_embedder("use")
        self.kept: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def of(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if text not in self.kept:
            words = question_words(text, kanji_spelling(text))
            vs = [np.asarray(v, dtype=np.float64) for v in embed_queries(self.emb, [text, *words])]
            sentence = unit(vs[0])
            mean = unit(np.mean(np.stack(vs[1:]), axis=0)) if words else sentence
            asked = unit(np.asarray(question_vector(self.emb, text), dtype=np.float64))
            self.kept[text] = (sentence, mean, asked)
        return self.kept[text]


def features(c: dict[str, Any], hits: list[Any], asked: Asked) -> np.ndarray:
    """One row per hit (``hits``: the product's first ``TOP``), the columns ``NAMES``."""
    sentence, words, searched = asked.of(c["text"])
    n = max(rf.BASE.candidates, len(hits))
    lv = {}
    for name in ("keyword", "vector"):
        ms = c[name][: max(n, 60)]
        if ms:
            lv[name] = dict(zip((m.memory_id for m in ms), levels(ms), strict=True))
        else:
            lv[name] = {}
    pool = list(c["memories"].values())
    df: dict[str, int] = defaultdict(int)
    held_of = {}
    for m in pool:
        held_of[m.id] = held_terms(m)
        for t in held_of[m.id]:
            df[t] += 1
    wanted = fold_kana(c["asked"])
    idf = {t: math.log(1 + len(pool) / (1 + df.get(t, 0))) for t in wanted}
    total = sum(idf.values()) or 1.0
    names = {x.lower() for i, x in enumerate(_NAMEISH.findall(c["text"])) if i or x.isdigit()}
    best = hits[0].score if hits and hits[0].score > 0 else 1.0
    now = c["clock"]
    prefix = {h.memory.content[:400]: h.score / best for h in hits}
    after: dict[str, float] = {}
    for h in hits:
        ctx = h.memory.context
        if ctx:
            after[ctx.split("\n")[-1]] = max(after.get(ctx.split("\n")[-1], 0.0), h.score / best)
    top_vec = c["vectors"].get(hits[0].memory.id) if hits else None
    top_vec = unit(np.asarray(top_vec, dtype=np.float64)) if top_vec is not None else None
    rows = []
    for place, h in enumerate(hits):
        m = h.memory
        v = c["vectors"].get(m.id)
        v = unit(np.asarray(v, dtype=np.float64)) if v is not None else np.zeros_like(sentence)
        held = held_of.get(m.id) or held_terms(m)
        own = fold_kana(terms(m.content))
        low = m.content.lower()
        ctx = m.context
        age = max((now - m.created_at).total_seconds() / 86400.0, 0.0)
        rows.append(
            [
                h.score / best,
                math.log1p(place),
                lv["keyword"].get(m.id, 0.0),
                lv["vector"].get(m.id, 0.0),
                float(v @ sentence),
                float(v @ words),
                float(v @ searched),
                sum(idf[t] for t in wanted if t in held) / total,
                sum(idf[t] for t in wanted if t in own) / total,
                len(wanted & held) / max(len(wanted), 1),
                math.log1p(len(own)),
                sum(x in low for x in names) / len(names) if names else 0.0,
                0.5 ** (age / 90.0),
                prefix.get(ctx.split("\n")[-1], 0.0) if ctx else 0.0,
                after.get(m.content[:400], 0.0),
                float(v @ top_vec) if top_vec is not None else 0.0,
            ]
        )
    return np.asarray(rows, dtype=np.float64)


def ranking(c: dict[str, Any], n: int) -> list[Any]:
    """The product's whole ranking of a question over each list's first ``n`` (recall's pool for k = n / 3)."""
    ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
    found = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
    return rank_candidates(found, c["clock"], rf.BASE)


# ---------------------------------------------------------------------------------------------- data


def prepare(cache: Path) -> list[dict[str, Any]]:
    """Every question of every set: its product ranking(s), the first TOP's features and labels."""
    asked = Asked()
    out = []
    lme_texts: list[str] = []
    sets = {}
    for name in ("locomo", "pooled", "s", "ja"):
        path = cache / f"{name}.pkl"
        if path.exists():
            sets[name] = pickle.loads(path.read_bytes())
    lme_texts = sorted({c["text"] for n in ("pooled", "s") for c in sets.get(n, [])})
    lme_fold = {t: f"lme-{i % 5}" for i, t in enumerate(lme_texts)}
    for name, data in sets.items():
        for c in data:
            if name == "locomo":
                views = {"turn": 10, "wide": 100}
                fold = c["fold"]
            elif name == "ja":
                views = {"turn": 3}
                fold = c["fold"]
            else:
                views = {"wide": 100}
                fold = lme_fold[c["text"]]
            q: dict[str, Any] = {"set": name, "fold": fold, "c": c, "kind": c["kind"]}
            for view, k in views.items():
                hits = ranking(c, max(rf.BASE.candidates, k * 3))
                ids = [h.memory.id for h in hits]
                top = hits[:TOP]
                x = features(c, top, asked) if top else np.zeros((0, len(NAMES)))
                q[view] = {
                    "ids": ids,
                    "x": x,
                    "y": np.asarray([label(name, c, i) for i in ids[:TOP]], dtype=float),
                }
            out.append(q)
    return out


def label(name: str, c: dict[str, Any], memory_id: str) -> bool:
    if name == "locomo":
        return bool(set(c["dia"][memory_id]) & set(c["evidence"]))
    if name == "ja":
        return c["fact"].get(memory_id) in c["expected"]
    return c["session"][memory_id] in c["answers"]


# ---------------------------------------------------------------------------------------------- model


RELATIVE = {NAMES.index("recency")}  # min-max within the question (raw ages differ by set and clock)
LAMBDA = False  # pairs weighed by how far apart 1 / log2(2 + place) puts them (the top counts more)


TRAIN_SETS = {"locomo", "pooled", "s", "ja"}  # the sets a model is fitted on (``--train-sets``)
QUADRATIC = False  # every product of two columns too (a ceiling for a model with interactions)


def shaped(x: np.ndarray, cols: list[int]) -> np.ndarray:
    x = x.copy()
    for j in RELATIVE:
        if len(x):
            low, high = x[:, j].min(), x[:, j].max()
            x[:, j] = (x[:, j] - low) / (high - low) if high > low else 0.0
    x = x[:, cols]
    if QUADRATIC:
        i, j = np.triu_indices(len(cols))
        x = np.concatenate([x, x[:, i] * x[:, j]], axis=1)
    return x


def pairs_of(qs: list[dict[str, Any]], view_of, cols: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each question's (positive - negative) feature differences, and each pair's weight (1 per set's
    question, shared among its pairs; the sets weigh the same)."""
    per_set = defaultdict(int)
    for q in qs:
        v = q.get(view_of(q))
        if v is not None and 0 < v["y"].sum() < len(v["y"]):
            per_set[q["set"]] += 1
    diffs, weights = [], []
    for q in qs:
        v = q.get(view_of(q))
        if v is None or not 0 < v["y"].sum() < len(v["y"]):
            continue
        x = shaped(v["x"], cols)
        y = v["y"] == 1
        pos, neg = x[y], x[~y]
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, x.shape[1])
        diffs.append(d)
        if LAMBDA:
            g = 1.0 / np.log2(2.0 + np.arange(len(y)))
            pw = np.abs(g[y][:, None] - g[~y][None, :]).reshape(-1)
        else:
            pw = np.ones(len(d))
        weights.append(pw / pw.sum() / per_set[q["set"]])
    return np.concatenate(diffs), np.concatenate(weights)


def fit(qs: list[dict[str, Any]], view_of, cols: list[int], l2: float = 1e-3, steps: int = 400) -> np.ndarray:
    """Pairwise logistic regression (RankNet, linear) by gradient descent with Adam."""
    d, w = pairs_of(qs, view_of, cols)
    scale = np.abs(d).mean(0) + 1e-9
    d = d / scale
    theta = np.zeros(d.shape[1])
    if 0 in cols:
        theta[cols.index(0)] = 1.0  # the product's score: the base order is where it starts
    m = np.zeros_like(theta)
    s = np.zeros_like(theta)
    for t in range(1, steps + 1):
        z = d @ theta
        p = 1.0 / (1.0 + np.exp(np.clip(z, -50, 50)))  # d loss / d z = -p
        grad = -(d * (w * p)[:, None]).sum(0) / w.sum() + l2 * theta
        m = 0.9 * m + 0.1 * grad
        s = 0.999 * s + 0.001 * grad**2
        theta -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(s / (1 - 0.999**t)) + 1e-8)
    return theta / scale


def reorder(v: dict[str, Any], theta: np.ndarray, cols: list[int]) -> list[str]:
    ids = v["ids"]
    if not len(v["x"]):
        return ids
    score = shaped(v["x"], cols) @ theta
    order = np.argsort(-score, kind="stable")
    return [ids[i] for i in order] + ids[TOP:]


# ---------------------------------------------------------------------------------------------- figures


def figures(q: dict[str, Any], order: dict[str, list[str]]) -> dict[str, float]:
    c = q["c"]
    name = q["set"]
    if name == "locomo":
        found = {d for i in order["turn"][:10] for d in c["dia"][i]}
        turn = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        sess = rf._sessions([d.split(":")[0] for i in order["wide"][:100] for d in c["dia"][i]])[:10]
        wanted = {e.split(":")[0] for e in c["evidence"]}
        return {"R@10": turn, "sessR@10": len(wanted & set(sess)) / len(wanted)}
    if name == "ja":
        top = [c["fact"].get(i) for i in order["turn"][:3]]
        return {
            "hit@3": float(bool(set(top) & c["expected"])),
            "hit@1": float(bool(top) and top[0] in c["expected"]),
        }
    sessions = rf._sessions([c["session"][i] for i in order["wide"][:100]])
    a = c["answers"]
    return {
        "any@5": float(bool(a & set(sessions[:5]))),
        "all@5": float(a <= set(sessions[:5])),
        "all@10": float(a <= set(sessions[:10])),
    }


def evaluate(qs, orders) -> dict[tuple[str, str], dict[str, float]]:
    """Mean figures per (set, fold) and per (set, 'all')."""
    rows: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    for q, order in zip(qs, orders, strict=True):
        f = figures(q, order)
        rows[(q["set"], q["fold"])].append(f)
        rows[(q["set"], "all")].append(f)
    return {k: {m: float(np.mean([r[m] for r in v])) for m in v[0]} for k, v in rows.items()}


def views(q):
    return [v for v in ("turn", "wide") if v in q]


def left_out(
    qs, cols, l2, english_only=False, view_of=None
) -> tuple[list[dict[str, list[str]]], dict[str, np.ndarray]]:
    folds = sorted({q["fold"] for q in qs})
    thetas = {}
    orders: list[dict[str, list[str]]] = [dict() for _ in qs]
    for fold in folds:
        train = [
            q
            for q in qs
            if q["fold"] != fold and not (english_only and q["set"] == "ja") and q["set"] in TRAIN_SETS
        ]
        theta = fit(train, view_of or (lambda q: "turn" if "turn" in q else "wide"), cols, l2)
        thetas[fold] = theta
        for i, q in enumerate(qs):
            if q["fold"] == fold:
                for v in views(q):
                    # English-only: trained without the Japanese sets, applied to every question without
                    # Japanese in it (the English questions of the Japanese sets too)
                    keep = english_only and CJK.search(q["c"]["text"]) is not None
                    orders[i][v] = q[v]["ids"] if keep else reorder(q[v], theta, cols)
    return orders, thetas


def show(title: str, base, got) -> None:
    print(f"## {title}")
    for key in sorted(got):
        b, g = base[key], got[key]
        print(
            f"  {key[0]:7s} {key[1]:10s} "
            + "  ".join(f"{m} {b[m]:.4f}->{g[m]:.4f}{'' if g[m] >= b[m] - 1e-9 else ' (-)'}" for m in g)
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lt30/base"))
    parser.add_argument("--l2", type=float, nargs="*", default=[1e-3])
    parser.add_argument("--cols", default="all", help="comma list of feature names, or all")
    parser.add_argument("--english-only", action="store_true")
    parser.add_argument("--lambda-weights", action="store_true")
    parser.add_argument("--quadratic", action="store_true")
    parser.add_argument(
        "--train-sets", default="locomo,pooled,s,ja", help="fitted on these only, scored on --sets"
    )
    parser.add_argument("--sets", default="locomo,pooled,s,ja", help="the sets trained on and scored")
    args = parser.parse_args()
    prepared = args.cache / "lt30_features.pkl"
    if prepared.exists():
        qs = pickle.loads(prepared.read_bytes())
    else:
        qs = prepare(args.cache)
        prepared.write_bytes(pickle.dumps(qs))
    global LAMBDA, QUADRATIC, TRAIN_SETS
    TRAIN_SETS = set(args.train_sets.split(","))
    LAMBDA = args.lambda_weights
    QUADRATIC = args.quadratic
    qs = [q for q in qs if q["set"] in args.sets.split(",")]
    base_orders = [{v: q[v]["ids"] for v in views(q)} for q in qs]
    base = evaluate(qs, base_orders)
    cols = list(range(len(NAMES))) if args.cols == "all" else [NAMES.index(n) for n in args.cols.split(",")]
    for l2 in args.l2:
        orders, thetas = left_out(qs, cols, l2, args.english_only)
        show(f"left out, l2 {l2}, cols {args.cols}", base, evaluate(qs, orders))
        for fold, theta in thetas.items():
            if QUADRATIC:
                continue
            print(
                f"  theta[{fold}] "
                + " ".join(f"{NAMES[c]}={t:+.3f}" for c, t in zip(cols, theta, strict=True))
            )
        # the ceiling: trained and scored on everything
        train = [q for q in qs if not (args.english_only and q["set"] == "ja") and q["set"] in TRAIN_SETS]
        theta = fit(train, lambda q: "turn" if "turn" in q else "wide", cols, l2)
        print(
            "  theta[all] " + " ".join(f"{NAMES[c]}={t:+.3f}" for c, t in zip(cols, theta, strict=True))
            if not QUADRATIC
            else ""
        )
        every = [
            {
                v: q[v]["ids"]
                if args.english_only and CJK.search(q["c"]["text"])
                else reorder(q[v], theta, cols)
                for v in views(q)
            }
            for q in qs
        ]
        show(f"in-sample (ceiling of these features, linear), l2 {l2}", base, evaluate(qs, every))


if __name__ == "__main__":
    main()
