"""Recall ranking rules on the LoCoMo and pooled LongMemEval dev sets, with left-out folds.

Why: a rule is worth shipping only when it holds on data it was not chosen on. Ingesting and
embedding the dev sets takes minutes, ranking them again takes seconds, so this script
ingests once (the benches' own `_remember_turns` / `_ingest`, SQLite files kept in CACHE),
collects each question's keyword and vector lists (300 each) and then re-runs
`MemoryEngine.recall`'s ranking function (`memory._rank.rank_candidates`, the very one recall
calls) over those lists for each candidate. The baseline reproduces `shitsuji bench locomo` and
`bench longmemeval --pooled` to the fourth decimal (docs/benchmarks.md, issue 23 lo23).

Folds: LoCoMo leaves one dev conversation out; for a grid of one knob each left-out
conversation is scored with the value best on the others ("left out"). Pooled LongMemEval
splits its questions into 5 folds (question i in fold i mod 5).

    .venv/bin/python scripts/recall_folds.py [--cache /tmp/recall-folds] [--data ../shared/data] [--embedder use]

``--embedder`` ingests and asks with another embedder (its own CACHE: the stores hold its vectors);
recall's weights then take that embedder's ``close_cosine``, as ``MemoryEngine`` does.

The data stays where it is (never copied into the package); CACHE holds the stores and lists.
"""

from __future__ import annotations

import argparse
import pickle
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from shitsuji.bench import locomo as lc
from shitsuji.bench import longmemeval as lme
from shitsuji.memory import MemoryEngine, load_embedder
from shitsuji.memory._advice import asked_terms
from shitsuji.memory._embedders import close_cosine_of
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._open import open_store
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._recall import RecallWeights
from shitsuji.memory._records import Hit
from shitsuji.memory._scopes import lineage

Remember = Callable[[MemoryEngine, str, list[dict[str, Any]]], dict[str, set[str]]]
POOL = 300  # collected per list: the widest pool any recall below asks for
BASE = RecallWeights()
EMBEDDER = "use"  # ``--embedder``


def _lists(engine: MemoryEngine, scope: str, text: str) -> dict[str, Any]:
    chain = lineage(scope)
    asked = asked_terms(text, BASE)
    keyword = engine.store.keyword_search(asked, chain, POOL)
    vector = engine.store.vector_search(
        engine.embedder.model_id,
        question_vector(engine.embedder, text, words=BASE.word_meanings),
        chain,
        POOL,
    )
    ids = list({m.memory_id for m in keyword} | {m.memory_id for m in vector})
    return {
        "text": text,
        "asked": asked,
        "keyword": keyword,
        "vector": vector,
        "memories": engine.store.get_many(ids),
        "vectors": engine.store.vectors_of(engine.embedder.model_id, ids),
        "clock": engine.clock(),
        "chain": chain,
    }


def collect_locomo(data: Path, db: Path, remember: Remember = lc._remember_turns) -> list[dict[str, Any]]:
    """Every LoCoMo dev question's lists; ``remember`` ingests a conversation (an experiment may index otherwise)."""
    fresh = not db.exists()
    store = open_store(db)
    engine = MemoryEngine(store, load_embedder(EMBEDDER))
    out = []
    try:
        for sample in lc.load(data):
            scope = f"bench/locomo/{sample.get('sample_id')}"
            conv_turns = lc.turns(sample)
            if fresh:
                dia = remember(engine, scope, conv_turns)
            else:
                dia = defaultdict(set)
                for m in engine.list_memories(scope):
                    dia[m.id].add(m.provenance["dia_id"])
            known = {t["dia_id"] for t in conv_turns}
            for qa in sample.get("qa", []):
                evidence = [e for e in lc.evidence_ids(qa.get("evidence", []))[0] if e in known]
                if evidence:
                    lists = _lists(engine, scope, qa["question"])
                    lists.update(fold=scope.rsplit("/", 1)[-1], evidence=evidence, kind=qa.get("category"))
                    lists["dia"] = {i: sorted(dia[i]) for i in lists["memories"]}
                    out.append(lists)
    finally:
        store.close()
    return out


def collect_pooled(data: Path, db: Path) -> list[dict[str, Any]]:
    fresh = not db.exists()
    questions = [q for q in lme.load(data) if not q["id"].endswith("_abs")]
    clock = lme.AskedAt()
    store = open_store(db)
    engine = MemoryEngine(store, load_embedder(EMBEDDER), clock=clock)
    scope = "bench/lme/pooled"
    try:
        if fresh:
            every = {s: x for q in questions for s, x in zip(q["session_ids"], q["sessions"], strict=True)}
            lme._ingest(engine, scope, every, lme.Ingest(), dates=lme._said_at(questions))
        session_of = {m.id: str(m.provenance["session"]) for m in engine.list_memories(scope)}
        out = [_asked(engine, scope, clock, n, q, session_of) for n, q in enumerate(questions)]
    finally:
        store.close()
    return out


def _asked(
    engine: MemoryEngine,
    scope: str,
    clock: lme.AskedAt,
    n: int,
    q: dict[str, Any],
    session_of: dict[str, str],
) -> dict[str, Any]:
    """One LongMemEval question's collected lists, asked at its own time, with its fold and answers."""
    clock.now = q["asked"]
    lists = _lists(engine, scope, q["question"])
    lists.update(
        fold=n % 5,
        answers=q["answers"],
        kind=q["type"],
        session={i: session_of[i] for i in lists["memories"]},
    )
    return lists


def collect_s(data: Path, db: Path) -> list[dict[str, Any]]:
    """LongMemEval_S: each question over its own haystack (its own scope), as ``bench longmemeval``."""
    fresh = not db.exists()
    questions = [q for q in lme.load(data) if not q["id"].endswith("_abs")]
    clock = lme.AskedAt()
    store = open_store(db)
    engine = MemoryEngine(store, load_embedder(EMBEDDER), clock=clock)
    said = lme._said_at(questions)
    out = []
    try:
        for n, q in enumerate(questions):
            scope = f"bench/lme/{q['id']}"
            if fresh:
                sessions = dict(zip(q["session_ids"], q["sessions"], strict=True))
                lme._ingest(engine, scope, sessions, lme.Ingest(), dates=said)
            session_of = {m.id: str(m.provenance["session"]) for m in engine.list_memories(scope)}
            out.append(_asked(engine, scope, clock, n, q, session_of))
    finally:
        store.close()
    return out


def rank(c: dict[str, Any], w: RecallWeights, k: int) -> list[Hit]:
    """``MemoryEngine.recall``'s ranking (``rank_candidates``, the same function) over collected lists."""
    n = max(w.candidates, k * 3)
    ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
    found = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
    return rank_candidates(found, c["clock"], w)[:k]


def _sessions(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def score_locomo(data: list[dict[str, Any]], w: RecallWeights) -> dict[str, dict[str, float]]:
    """Turn-level R@10 and session-level R@10 per left-out conversation."""
    turn: dict[str, list[float]] = defaultdict(list)
    session: dict[str, list[float]] = defaultdict(list)
    for c in data:
        found = {d for h in rank(c, w, 10) for d in c["dia"][h.memory.id]}
        turn[c["fold"]].append(sum(e in found for e in c["evidence"]) / len(c["evidence"]))
        top = set(_sessions([d.split(":")[0] for h in rank(c, w, 100) for d in c["dia"][h.memory.id]])[:10])
        wanted = {e.split(":")[0] for e in c["evidence"]}
        session[c["fold"]].append(len(wanted & top) / len(wanted))
    return {f: {"turn": _mean(turn[f]), "session": _mean(session[f]), "n": len(turn[f])} for f in turn}


def score_pooled(data: list[dict[str, Any]], w: RecallWeights) -> dict[int, float]:
    """recall_any@5 per question fold."""
    folds: dict[int, list[float]] = defaultdict(list)
    for c in data:
        folds[c["fold"]].append(_at5(c, w)[0])
    return {f: _mean(v) for f, v in sorted(folds.items())}


def _at5(c: dict[str, Any], w: RecallWeights) -> tuple[float, float]:
    """One LongMemEval question's recall_any@5 and recall_all@5 (sessions of the best 100 turns)."""
    top = set(_sessions([c["session"][h.memory.id] for h in rank(c, w, 100)])[:5])
    return float(bool(c["answers"] & top)), float(c["answers"] <= top)


LOCOMO_KINDS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def by_kind(sets: dict[str, list[dict[str, Any]]], w: RecallWeights) -> None:
    """Each set's figure per question kind and overall, and the LongMemEval questions missed at all@5."""
    kinds: dict[str, list[float]] = defaultdict(list)
    for c in sets.get("locomo", []):
        found = {d for h in rank(c, w, 10) for d in c["dia"][h.memory.id]}
        row = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        kinds[f"locomo R@10 {LOCOMO_KINDS.get(c['kind'], c['kind'])}"].append(row)
        kinds["locomo R@10 overall"].append(row)
    for name in ("pooled", "s"):
        misses = []
        for c in sets.get(name, []):
            any5, all5 = _at5(c, w)
            for key in (f"{name} {c['kind']}", f"{name} overall"):
                kinds[f"{key} any@5"].append(any5)
                kinds[f"{key} all@5"].append(all5)
            if not all5:
                misses.append(f"{c['kind']}: {c['text'][:70]}")
        print(f"{name} all@5 misses: " + " | ".join(misses))
    for key, rows in sorted(kinds.items()):
        print(f"{key:>48}  {_mean(rows):.4f}  (n={len(rows)})")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def left_out(grid: dict[str, dict[str, dict[str, float]]]) -> float:
    """Each conversation scored with the grid value best on the other conversations."""
    folds = next(iter(grid.values()))
    total = n = 0.0
    for fold in folds:

        def others(value: str, fold: str = fold) -> float:
            return sum(r["turn"] * r["n"] for f, r in grid[value].items() if f != fold)

        pick = max(grid, key=others)
        total += grid[pick][fold]["turn"] * folds[fold]["n"]
        n += folds[fold]["n"]
    return total / n


CANDIDATES: dict[str, dict[str, RecallWeights]] = {
    "standout (shipped) vs plain min-max": {
        "standout": BASE,
        "min-max": replace(BASE, standout=False),
    },
    "English vector weight, standout": {
        f"{v}": replace(BASE, vector_weight=v) for v in (0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)
    },
    "candidate pool, standout": {f"{n}": replace(BASE, candidates=n) for n in (40, 50, 60, 100, 200)},
}


def _with_embedder(name: str) -> None:
    """Every grid's weights with ``name``'s ``close_cosine`` (``MemoryEngine.ranking_weights`` does the same)."""
    global BASE, EMBEDDER
    EMBEDDER = name
    own = close_cosine_of(load_embedder(name))
    if own is None or own == BASE.close_cosine:
        return
    BASE = replace(BASE, close_cosine=own)
    for grid in CANDIDATES.values():
        for value, w in grid.items():
            grid[value] = replace(w, close_cosine=own)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recall-folds"))
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--kinds-only", action="store_true", help="the per-kind figures, no grids")
    parser.add_argument("--embedder", default="use", help="the embedder that ingests and asks (default: use)")
    parser.add_argument("--sets", default="locomo,pooled,s", help="which sets (default: locomo,pooled,s)")
    parser.add_argument("--grid", default="", help="only the grids whose title holds this text")
    args = parser.parse_args()
    _with_embedder(args.embedder)
    chosen = set(args.sets.split(","))
    args.cache.mkdir(parents=True, exist_ok=True)
    sets = {}
    for name, collect, source in (
        ("locomo", collect_locomo, args.data / "locomo" / "locomo-dev.json"),
        ("pooled", collect_pooled, args.data / "longmemeval" / "lme-oracle-dev.json"),
        ("s", collect_s, args.data / "longmemeval" / "lme-s-dev.json"),
    ):
        if name not in chosen:
            continue
        lists = args.cache / f"{name}.pkl"
        if not lists.exists():
            lists.write_bytes(pickle.dumps(collect(source, args.cache / f"{name}.db")))
        sets[name] = pickle.loads(lists.read_bytes())
    print("## by kind, shipped weights")
    by_kind(sets, BASE)
    if args.kinds_only:
        return
    for title, grid in CANDIDATES.items():
        if args.grid not in title:
            continue
        print(f"## {title}")
        scores = {value: score_locomo(sets["locomo"], w) for value, w in grid.items()}
        for value, w in grid.items():
            per = scores[value]
            n = sum(r["n"] for r in per.values())
            turn = sum(r["turn"] * r["n"] for r in per.values()) / n
            session = sum(r["session"] * r["n"] for r in per.values()) / n
            pooled = score_pooled(sets.get("pooled", []), w) or {0: 0.0}  # (LongMemEval_S: per kind above)
            print(
                f"{value:>10}  LoCoMo R@10 {turn:.4f} ("
                + ", ".join(f"{f} {r['turn']:.4f}" for f, r in per.items())
                + f")  session {session:.4f}  pooled any@5 {_mean(list(pooled.values())):.4f} folds "
                + " ".join(f"{v:.3f}" for v in pooled.values())
            )
        print(f"{'left out':>10}  LoCoMo R@10 {left_out(scores):.4f}\n")


if __name__ == "__main__":
    main()
