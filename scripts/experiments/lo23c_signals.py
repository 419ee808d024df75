"""Issue 23 (lo23c): LoCoMo dev misses, and two ranking signals measured on recall_folds.py's lists.

Why: before choosing a signal, see where the evidence turns of the missed questions rank; then
score each candidate on whole conversations left out. Reads the lists ``scripts/recall_folds.py``
collects (run it once with the same ``--cache``), ranks them with the product's
``rank_candidates`` (through ``recall_folds.rank``) and changes only the final list:

- ``misses``: every LoCoMo dev evidence turn outside the first 10 — question, kind, the turn, the
  rank it got (None: in neither 60-candidate list) and the first hit's turn.
- ``neighbours``: a hit pulls its adjacent turns of the same session in at ``s`` × its score
  (the next turn — the reply — and/or the previous one), then the best 10 turns are taken.
- ``names``: a hit whose text holds a capitalised word of the question that is not a speaker's
  name (proper nouns other than the two people: "Sweden", "Page Turners") × (1 + v).

    .venv/bin/python scripts/experiments/lo23c_signals.py misses|neighbours|names --cache /tmp/recall-folds

Nothing here is product code: neither signal improved the left-out figures (docs/benchmarks.md,
"Issue 23, lo23c").
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_folds as rf

from shitsuji.bench import locomo as lc
from shitsuji.bench._common import turn_context
from shitsuji.memory import MemoryEngine
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._records import Hit

Scorer = Callable[[dict[str, Any], list[Hit]], dict[str, float]]
_NAME = re.compile(r"(?<![.?!]\s)(?<!^)\b[A-Z][a-z][\w\-]*")


def _all_hits(c: dict[str, Any]) -> list[Hit]:
    """Every candidate of the shipped 60-per-list pool, ranked as recall ranks them."""
    n = rf.BASE.candidates
    ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
    found = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
    return rank_candidates(found, c["clock"], rf.BASE)


def _turn_scores(c: dict[str, Any], hits: list[Hit]) -> dict[str, float]:
    out: dict[str, float] = {}
    for h in hits:
        for d in c["dia"][h.memory.id]:
            out[d] = max(out.get(d, 0.0), h.score)
    return out


def _left_out(rows: dict[str, dict[str, tuple[float, int]]]) -> float:
    """Each conversation scored with the value best on the other two (rows: value -> fold -> (R@10, n))."""
    folds = next(iter(rows.values()))
    total = 0.0
    for fold in folds:
        pick = max(rows, key=lambda v: sum(r * n for f, (r, n) in rows[v].items() if f != fold))
        total += rows[pick][fold][0] * folds[fold][1]
    return total / sum(n for _, n in folds.values())


def _grid(data: list[dict[str, Any]], grid: dict[str, Scorer]) -> None:
    base = [(c, _all_hits(c)) for c in data]
    rows: dict[str, dict[str, tuple[float, int]]] = {}
    for value, scorer in grid.items():
        per: dict[str, list[float]] = defaultdict(list)
        for c, hits in base:
            scores = scorer(c, hits)
            top = set(sorted(scores, key=lambda d: scores[d], reverse=True)[:10])
            per[c["fold"]].append(sum(e in top for e in c["evidence"]) / len(c["evidence"]))
        rows[value] = {f: (sum(v) / len(v), len(v)) for f, v in per.items()}
        overall = sum(r * n for r, n in rows[value].values()) / sum(n for _, n in rows[value].values())
        print(
            f"{value:>14}  R@10 {overall:.4f}  "
            + " ".join(f"{f} {r:.4f}" for f, (r, _) in rows[value].items())
        )
    print(f"{'left out':>14}  R@10 {_left_out(rows):.4f}")


def _neighbours(before: float, after: float) -> Scorer:
    def score(c: dict[str, Any], hits: list[Hit]) -> dict[str, float]:
        own = _turn_scores(c, hits)
        out = dict(own)
        for dia, s in own.items():
            session, turn = dia[1:].split(":")
            for near, share in (
                (f"D{session}:{int(turn) + 1}", after),
                (f"D{session}:{int(turn) - 1}", before),
            ):
                if share and share * s > out.get(near, 0.0):
                    out[near] = share * s
        return out

    return score


def _names(v: float) -> Scorer:
    def score(c: dict[str, Any], hits: list[Hit]) -> dict[str, float]:
        speakers = {h.memory.content.split(":", 1)[0] for h in hits}
        names = {n for n in _NAME.findall(c["text"]) if n not in speakers}
        lifted = [
            (h, h.score * (1.0 + v) if any(n in h.memory.content for n in names) else h.score) for h in hits
        ]
        out: dict[str, float] = {}
        for h, s in lifted:
            for d in c["dia"][h.memory.id]:
                out[d] = max(out.get(d, 0.0), s)
        return out

    return score


def misses(data: list[dict[str, Any]], texts: dict[str, str]) -> None:
    count = 0
    for c in data:
        hits = rf.rank(c, rf.BASE, 300)
        rank_of: dict[str, int] = {}
        for r, h in enumerate(hits):
            for d in c["dia"][h.memory.id]:
                rank_of.setdefault(d, r)
        for e in c["evidence"]:
            if (at := rank_of.get(e)) is None or at >= 10:
                count += 1
                first = ", ".join(texts.get(f"{c['fold']}/{d}", "")[:70] for d in c["dia"][hits[0].memory.id])
                print(f"[{c['fold']} {rf.LOCOMO_KINDS[c['kind']]}] {c['text']}")
                print(f"    {e} rank {at}: {texts.get(c['fold'] + '/' + e, '?')[:160]}\n    first: {first}")
    print(f"{count} evidence turns outside the first 10")


def _remember_dated(
    engine: MemoryEngine, scope: str, conv_turns: list[dict[str, Any]]
) -> dict[str, set[str]]:
    """``locomo._remember_turns`` with the session's date as the last line of each turn's context."""
    dia: dict[str, set[str]] = defaultdict(set)
    for n, turn in enumerate(conv_turns):
        earlier = [
            f"{t['speaker']}: {t['text']}"
            for t in conv_turns[max(n - 2, 0) : n]
            if t["session"] == turn["session"]
        ]
        said = turn["date"].strftime("%-d %B %Y")
        context = "\n".join(filter(None, [turn_context(earlier), said]))
        result = engine.remember(
            f"{turn['speaker']}: {turn['text']}",
            scope,
            category="event",
            provenance={"dia_id": turn["dia_id"], "session_date": str(turn["date"])},
            created_at=turn["date"],
            context=context,
        )
        dia[result.memory.id].add(turn["dia_id"])
    return dia


def dated(data: Path, cache: Path) -> None:
    """Collect LoCoMo dev again with date keys (own store in CACHE/dated), score beside the plain lists."""
    cache.mkdir(parents=True, exist_ok=True)
    lists = cache / "locomo.pkl"
    if not lists.exists():
        lists.write_bytes(pickle.dumps(rf.collect_locomo(data, cache / "locomo.db", _remember_dated)))
    for name, rows in (
        ("plain", pickle.loads((cache.parent / "locomo.pkl").read_bytes())),
        ("dated", pickle.loads(lists.read_bytes())),
    ):
        per = rf.score_locomo(rows, rf.BASE)
        n = sum(r["n"] for r in per.values())
        turn = sum(r["turn"] * r["n"] for r in per.values()) / n
        print(f"{name}  R@10 {turn:.4f}  " + " ".join(f"{f} {r['turn']:.4f}" for f, r in per.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("misses", "neighbours", "names", "dated"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recall-folds"))
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    args = parser.parse_args()
    if args.what == "dated":
        dated(args.data / "locomo" / "locomo-dev.json", args.cache / "dated")
        return
    data = pickle.loads((args.cache / "locomo.pkl").read_bytes())
    if args.what == "misses":
        texts = {
            f"{s['sample_id']}/{t['dia_id']}": f"{t['speaker']}: {t['text']}"
            for s in lc.load(args.data / "locomo" / "locomo-dev.json")
            for t in lc.turns(s)
        }
        misses(data, texts)
    elif args.what == "neighbours":
        shares = [
            (0.0, 0.0),
            (0.0, 0.5),
            (0.0, 0.7),
            (0.0, 0.9),
            (0.5, 0.0),
            (0.7, 0.0),
            (0.5, 0.5),
            (0.7, 0.7),
        ]
        _grid(data, {f"prev {b} next {a}": _neighbours(b, a) for b, a in shares})
    else:
        _grid(data, {f"{v}": _names(v) for v in (0.0, 0.1, 0.2, 0.3, 0.5)})


if __name__ == "__main__":
    main()
