"""Issue 23 (lo23e): LoCoMo multi-hop / open-domain — second retrievals and priors, left out by conversation.

Why: the remaining LoCoMo misses share no word with their question. Before touching the product,
each idea is scored on ``scripts/recall_folds.py``'s collected lists (run it first with the same
``--cache``) by the product's own ``rank_candidates``; ideas that need another search run it
exactly over the scope's stored vectors (the stores are in CACHE). Every variant is scored on the
three LoCoMo dev conversations (a knob: left out, the value best on the other two), on pooled
LongMemEval any@5 / all@5 (5 question folds) and on LongMemEval_S.

- ``rocchio``: pseudo-relevance feedback in vector space — the query vector plus ``beta`` × the
  mean of the first ``m`` hits' vectors, searched again; the keyword list kept.
- ``words``: keyword feedback — the first hits' rarest words added to the keyword search.
- ``said together``: a memory's fused score plus ``lam`` × the best fused score among memories said
  at the same moment (``created_at``: one session), the session-level prior.
- ``e5`` (``--only e5``): the second embedder's vector list over the same memories fused as a third
  signal (weight grid), or in place of the first model's; e5 vectors of every memory made once as
  ``embed_rows`` makes them and kept in CACHE (slow: ~10 min per 1,000 turns at load 17).

    .venv/bin/python scripts/recall_folds.py --cache /tmp/lo23e/base --data ../shared/data --kinds-only
    .venv/bin/python scripts/experiments/lo23e_signals.py --cache /tmp/lo23e/base [--only rocchio|said|e5] [--lme]

Pooled / S figures here rank a 60-per-list pool (the product asks max(60, 3k) = 300 at k = 100),
so their base row is 0.9474 / 0.8000, not the product's 0.9579 / 0.8105; compare rows with rows.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_folds as rf

from shitsuji.memory import load_embedder
from shitsuji.memory._open import open_store
from shitsuji.memory._rank import Candidates, held_terms, rank_candidates
from shitsuji.memory._records import Hit
from shitsuji.memory._slots import Match

Variant = Callable[[dict[str, Any]], list[Hit]]
POOL = rf.BASE.candidates


class Scopes:
    """Every memory and first-chunk vector of each scope a set's questions ask in (from its store)."""

    def __init__(self, db: Path) -> None:
        self.store = open_store(db)
        self.model = "use"
        self._embedder = load_embedder("use")
        self.model = self._embedder.model_id
        self._scopes: dict[str, tuple[list[str], np.ndarray]] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.memories: dict[str, Any] = {}
        self.df: dict[str, Counter[str]] = {}

    def of(self, scope: str) -> tuple[list[str], np.ndarray]:
        if scope not in self._scopes:
            rows = list(self.store.list_memories(scope, include_deleted=False))
            ids = [m.id for m in rows]
            self.memories.update({m.id: m for m in rows})
            self.store.vector_search(self.model, self.query("sync"), [scope], 1)  # loads the scope's vectors
            vectors = self.store.vectors_of(self.model, ids)
            ids = [i for i in ids if i in vectors]
            self._scopes[scope] = (ids, np.vstack([vectors[i] for i in ids]))
            df: Counter[str] = Counter()
            for m in rows:
                df.update(held_terms(m))
            self.df[scope] = df
        return self._scopes[scope]

    def query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = self._embedder.embed_query(text)
        return self._queries[text]

    def search(self, scope: str, vector: np.ndarray, n: int) -> list[Match]:
        ids, matrix = self.of(scope)
        cos = matrix @ vector
        top = np.argsort(-cos)[:n]
        return [Match(ids[i], float(cos[i])) for i in top]


def widen(c: dict[str, Any], scopes: Scopes, found: list[Match]) -> dict[str, Any]:
    """``c`` with the rows, vectors and turn / session ids of memories a new search found."""
    ids, matrix = scopes.of(c["chain"][0])
    row = {i: n for n, i in enumerate(ids)}
    new = [m.memory_id for m in found if m.memory_id not in c["memories"]]
    for i in new:
        p = scopes.memories[i].provenance
        if "dia" in c:
            c["dia"][i] = [p["dia_id"]]
        else:
            c["session"][i] = str(p["session"])
    return {
        **c,
        "memories": {**c["memories"], **{i: scopes.memories[i] for i in new}},
        "vectors": {**c["vectors"], **{i: matrix[row[i]] for i in new}},
    }


def ranked_with(
    c: dict[str, Any], keyword: list[Match], vector: list[Match], memories: dict[str, Any]
) -> list[Hit]:
    found = Candidates(
        c["text"],
        c["asked"],
        {"keyword": keyword[:POOL], "vector": vector[:POOL]},
        memories,
        c["vectors"],
        c["chain"],
    )
    return rank_candidates(found, c["clock"], rf.BASE)


def base(c: dict[str, Any]) -> list[Hit]:
    return ranked_with(c, c["keyword"], c["vector"], c["memories"])


def rocchio(scopes: Scopes, beta: float, m: int) -> Variant:
    def run(c: dict[str, Any]) -> list[Hit]:
        first = base(c)[:m]
        scope = c["chain"][0]
        scopes.of(scope)
        q = scopes.query(c["text"])
        vecs = [c["vectors"][h.memory.id] for h in first if h.memory.id in c["vectors"]]
        if not vecs:
            return base(c)
        moved = q + beta * np.mean(vecs, axis=0)
        moved = moved / np.linalg.norm(moved)
        fed = scopes.search(scope, moved.astype(np.float32), POOL)
        c2 = widen(c, scopes, fed)
        return ranked_with(c2, c["keyword"], fed, c2["memories"])

    return run


def words(scopes: Scopes, m: int, n_terms: int) -> Variant:
    """The first m hits' rarest terms (by the scope's document frequency) added to the keyword search."""

    def run(c: dict[str, Any]) -> list[Hit]:
        first = base(c)[:m]
        scope = c["chain"][0]
        scopes.of(scope)
        df = scopes.df[scope]
        total = len(scopes.of(scope)[0])
        asked = set(c["asked"])
        weight: Counter[str] = Counter()
        for h in first:
            for t in held_terms(h.memory):
                if t not in asked and df[t] > 1:
                    weight[t] += math.log(total / df[t])
        extra = [t for t, _ in weight.most_common(n_terms)]
        keyword = scopes.store.keyword_search([*c["asked"], *extra], c["chain"], POOL)
        c2 = widen(c, scopes, keyword)
        return ranked_with(c2, keyword, c["vector"], c2["memories"])

    return run


def score_locomo(data: list[dict[str, Any]], variant: Variant) -> dict[str, Any]:
    per: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, list[float]] = defaultdict(list)
    sessions: dict[str, list[float]] = defaultdict(list)
    for c in data:
        hits = variant(c)
        found = {d for h in hits[:10] for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
        top = set(rf._sessions([d.split(":")[0] for h in hits[:100] for d in c["dia"][h.memory.id]])[:10])
        wanted = {e.split(":")[0] for e in c["evidence"]}
        sessions[c["fold"]].append(len(wanted & top) / len(wanted))
    return {
        "folds": {f: (rf._mean(v), len(v)) for f, v in per.items()},
        "kinds": {k: rf._mean(v) for k, v in sorted(kinds.items())},
        "session": rf._mean([x for v in sessions.values() for x in v]),
    }


def score_lme(data: list[dict[str, Any]], variant: Variant) -> tuple[dict[int, float], float, float]:
    folds: dict[int, list[float]] = defaultdict(list)
    alls = []
    for c in data:
        hits = variant(c)
        top = set(rf._sessions([c["session"][h.memory.id] for h in hits[:100]])[:5])
        folds[c["fold"]].append(float(bool(c["answers"] & top)))
        alls.append(float(c["answers"] <= top))
    anys = [x for v in folds.values() for x in v]
    return {f: rf._mean(v) for f, v in sorted(folds.items())}, rf._mean(anys), rf._mean(alls)


def left_out(rows: dict[str, dict[str, tuple[float, int]]]) -> float:
    folds = next(iter(rows.values()))
    total = 0.0
    for fold in folds:
        pick = max(rows, key=lambda v: sum(r * n for f, (r, n) in rows[v].items() if f != fold))
        total += rows[pick][fold][0] * folds[fold][1]
    return total / sum(n for _, n in folds.values())


def report(name: str, grid: dict[str, dict[str, Variant]], sets: dict[str, list[dict[str, Any]]]) -> None:
    print(f"## {name}")
    rows = {}
    for value, variants in grid.items():
        lo = score_locomo(sets["locomo"], variants["locomo"])
        rows[value] = lo["folds"]
        n = sum(k for _, k in lo["folds"].values())
        overall = sum(r * k for r, k in lo["folds"].values()) / n
        line = (
            f"{value:>16}  R@10 {overall:.4f} ("
            + " ".join(f"{f} {r:.4f}" for f, (r, _) in lo["folds"].items())
            + ") kinds "
            + " ".join(f"{k[:5]} {v:.3f}" for k, v in lo["kinds"].items())
            + f" session {lo['session']:.4f}"
        )
        for lme in ("pooled", "s"):
            if lme in sets and lme in variants:
                folds, any5, all5 = score_lme(sets[lme], variants[lme])
                line += f" | {lme} {any5:.4f}/{all5:.4f}"
                if lme == "pooled":
                    line += " (" + " ".join(f"{v:.3f}" for v in folds.values()) + ")"
        print(line, flush=True)
    print(f"{'left out':>16}  R@10 {left_out(rows):.4f}\n", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lo23e/base"))
    parser.add_argument("--only", default="")
    parser.add_argument("--lme", action="store_true", help="score pooled / S as well")
    args = parser.parse_args()
    sets = {"locomo": pickle.loads((args.cache / "locomo.pkl").read_bytes())}
    names = ["locomo"]
    if args.lme:
        for name in ("pooled", "s"):
            if (args.cache / f"{name}.pkl").exists():
                sets[name] = pickle.loads((args.cache / f"{name}.pkl").read_bytes())
                names.append(name)
    scopes = {n: Scopes(args.cache / f"{n}.db") for n in names}
    grids: dict[str, dict[str, dict[str, Variant]]] = {
        "rocchio (beta, m)": {
            f"{b},{m}": {n: (rocchio(scopes[n], b, m) if b else base) for n in names}
            for b, m in ((0, 0), (0.5, 3), (1.0, 3), (0.5, 5), (1.0, 5), (0.75, 10), (1.0, 10), (2.0, 10))
        },
        "keyword feedback (m, terms)": {
            f"{m},{t}": {n: (words(scopes[n], m, t) if m else base) for n in names}
            for m, t in ((0, 0), (3, 5), (5, 5), (5, 10), (10, 10))
        },
    }
    grids["said together (lam)"] = {
        f"{lam}": {n: said_together(lam) for n in names} for lam in (0.0, 0.1, 0.2, 0.3, 0.5)
    }
    if "e5" in args.only:
        e5 = {n: SecondVectors(scopes[n], args.cache) for n in names}
        grid_e5 = {f"e5 {w}": {n: second_model(e5[n], w) for n in names} for w in (0.0, 0.2, 0.4, 0.6, 1.0)}
        grid_e5["e5 alone"] = {n: second_model(e5[n], 0, replace_first=True) for n in names}
        grids["second model e5 (weight)"] = grid_e5
    for name, grid in grids.items():
        if args.only and args.only not in name:
            continue
        report(name, grid, sets)


def _rank_more(c: dict[str, Any], ranked: dict[str, list[Match]], extra: dict[str, float]) -> list[Hit]:
    """``rank_candidates`` with further signals (name -> weight) fused beside keyword and vector."""
    from shitsuji.memory import _rank
    from shitsuji.memory._recall import asks_for_now, fuse, weigh

    w = rf.BASE
    weights = {"keyword": w.keyword_weight, "vector": w.vector_weight, **extra}
    scale = {}
    if w.cross_script and ranked.get("vector") and ranked.get("keyword"):
        scale["vector"] = _rank.cross_script(ranked["vector"], c["memories"], w)
    fused = fuse(ranked, weights, scale, standout=w.standout)
    distances = {s: d for d, s in enumerate(c["chain"])}
    return weigh(
        fused,
        c["memories"],
        distances,
        c["clock"],
        w,
        asks_for_now=asks_for_now(c["text"]),
        vectors=c["vectors"],
    )


class SecondVectors:
    """e5 vectors of every memory of a scope (as ``embed_rows`` makes them: content and context), kept in CACHE."""

    def __init__(self, scopes: Scopes, cache: Path) -> None:
        from shitsuji.memory._embedding import embed_rows

        self.scopes, self.cache, self._embed_rows = scopes, cache, embed_rows
        self.model = load_embedder("e5")
        self._by_scope: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}

    def of(self, scope: str) -> np.ndarray:
        if scope not in self._by_scope:
            ids, _ = self.scopes.of(scope)
            file = self.cache / f"e5-{scope.replace('/', '_')}.npy"
            if not file.exists():
                rows = [(self.scopes.memories[i].content, self.scopes.memories[i].context, ()) for i in ids]
                seen: dict[str, np.ndarray] = {}
                out = []
                for start in range(0, len(rows), 32):
                    out.extend(m[0] for m in self._embed_rows(self.model, rows[start : start + 32], seen))
                np.save(file, np.vstack(out))
            self._by_scope[scope] = np.load(file)
        return self._by_scope[scope]

    def search(self, scope: str, text: str, n: int) -> list[Match]:
        if text not in self._queries:
            self._queries[text] = self.model.embed_query(text)
        ids, _ = self.scopes.of(scope)
        cos = self.of(scope) @ self._queries[text]
        return [Match(ids[i], float(cos[i])) for i in np.argsort(-cos)[:n]]


def second_model(e5: SecondVectors, weight: float, replace_first: bool = False) -> Variant:
    """e5's vector list over the same memories fused as a third signal (or in place of the first model's)."""

    def run(c: dict[str, Any]) -> list[Hit]:
        mapped = e5.search(c["chain"][0], c["text"], POOL)
        ranked = {"keyword": c["keyword"][:POOL], "vector": c["vector"][:POOL]}
        c2 = widen(c, e5.scopes, mapped)
        if replace_first:
            ranked["vector"] = mapped
            return _rank_more(c2, ranked, {})
        ranked["e5"] = mapped
        return _rank_more(c2, ranked, {"e5": weight})

    return run


def said_together(lam: float, pool: int = POOL) -> Variant:
    """Each fused score plus ``lam`` × the best fused score among memories said at the same moment
    (``created_at``: one conversation session in these benches), before ``weigh`` and the span rule."""
    from shitsuji.memory import _rank
    from shitsuji.memory._recall import asks_for_now, fuse, weigh
    from shitsuji.memory._when import asked_span, favour_span

    def run(c: dict[str, Any]) -> list[Hit]:
        w = rf.BASE
        ranked = {"keyword": c["keyword"][:pool], "vector": c["vector"][:pool]}
        scale = {"vector": _rank.cross_script(ranked["vector"], c["memories"], w)}
        fused = fuse(
            ranked, {"keyword": w.keyword_weight, "vector": w.vector_weight}, scale, standout=w.standout
        )
        best: dict[Any, float] = {}
        for mid, f in fused.items():
            if mid in c["memories"]:
                at = c["memories"][mid].created_at
                best[at] = max(best.get(at, 0.0), f.score)
        for mid, f in fused.items():
            if mid in c["memories"]:
                f.score += lam * best[c["memories"][mid].created_at]
        distances = {s: d for d, s in enumerate(c["chain"])}
        hits = weigh(
            fused,
            c["memories"],
            distances,
            c["clock"],
            w,
            asks_for_now=asks_for_now(c["text"]),
            vectors=c["vectors"],
        )
        if (span := asked_span(c["text"], c["clock"])) is not None:
            hits = favour_span(hits, span, w)
        return hits

    return run


if __name__ == "__main__":
    main()
