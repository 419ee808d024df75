"""Issue 23 (lo27): keyword matches through a memory's context, scored on recall_folds.py's lists.

A chat line is indexed with the words of the two turns before it (its context), so one turn that
holds the question's words lends them to the next two, and the three fill the first ten together.
Each variant scales the keyword signal of a memory by how much of its match is its own text (a
``scale`` as ``rank_candidates`` gives ``fuse``), then ranks as the product does.

    .venv/bin/python scripts/experiments/lo27_signals.py --cache /tmp/lo27/base [variant ...]
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import recall_folds as rf

from shitsuji.memory._kana import fold_kana
from shitsuji.memory._rank import CONTEXT_TERMS_CHARS, Candidates, held_terms
from shitsuji.memory._recall import asks_for_now, cross_script, fuse, keyword_coverage, weigh
from shitsuji.memory._records import Hit, Memory
from shitsuji.memory._said import said_terms, said_zone
from shitsuji.memory._text import CJK, terms
from shitsuji.memory._when import asked_span, favour_span

Scale = Callable[[dict[str, Any], list[str]], dict[str, float]]


def own_terms(m: Memory) -> frozenset[str]:
    return fold_kana(
        set(terms(m.content))
        | set(terms("\n".join(m.keys)))
        | set(said_terms(m.created_at, said_zone(m.provenance)))
    )


def ctx_terms(m: Memory) -> frozenset[str]:
    return fold_kana(set(terms(m.context[-CONTEXT_TERMS_CHARS:]))) if m.context else frozenset()


def rank_with(c: dict[str, Any], k: int, extra: Scale | None) -> list[Hit]:
    w = rf.BASE
    n = max(w.candidates, k * 3)
    ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
    found = Candidates(c["text"], c["asked"], ranked, c["memories"], c["vectors"], c["chain"])
    japanese = CJK.search(found.text) is not None
    keyword, vector = ranked["keyword"], ranked["vector"]
    scale: dict[str, dict[str, float]] = {}
    if japanese and w.keyword_coverage and keyword:
        held = {
            m.memory_id: held_terms(found.memories[m.memory_id])
            for m in keyword
            if m.memory_id in found.memories
        }
        scale["keyword"] = keyword_coverage(list(fold_kana(found.asked)), held)
    if extra is not None and keyword:
        more = extra(c, [m.memory_id for m in keyword if m.memory_id in found.memories])
        base = scale.get("keyword", {})
        scale["keyword"] = {i: base.get(i, 1.0) * more.get(i, 1.0) for i in set(base) | set(more)}
    if w.cross_script and not japanese and vector and keyword:
        scale["vector"] = cross_script(vector, found.memories, w)
    weights = {"keyword": w.keyword_weight, "vector": w.vector_weight_cjk if japanese else w.vector_weight}
    fused = fuse(ranked, weights, scale, standout=w.standout)
    distances = {s: d for d, s in enumerate(found.chain)}
    hits = weigh(
        fused,
        found.memories,
        distances,
        c["clock"],
        w,
        asks_for_now=asks_for_now(found.text),
        vectors=found.vectors,
    )
    if (span := asked_span(found.text, c["clock"], UTC)) is not None:
        hits = favour_span(hits, span, w, UTC)
    return hits[:k]


def own_share(half: float) -> Scale:
    """Keyword factor: the share of the memory's matched question terms that are its own (context ones count ``half``)."""

    def scale(c: dict[str, Any], ids: list[str]) -> dict[str, float]:
        asked = fold_kana(c["asked"])
        out = {}
        for i in ids:
            m = c["memories"][i]
            own = asked & own_terms(m)
            ctx = (asked & ctx_terms(m)) - own
            if own or ctx:
                out[i] = (len(own) + half * len(ctx)) / (len(own) + len(ctx))
        return out

    return scale


def _context_matches(c: dict[str, Any], ids: list[str]) -> list[tuple[Memory, set[str], set[str], set[str]]]:
    """Per candidate matching some question term through its context only: (memory, its own matched
    terms, its context-only ones, those of them a candidate its context quotes holds as its own)."""
    asked = fold_kana(c["asked"])
    mems = [c["memories"][i] for i in ids]
    owns = {m.id: set(asked & own_terms(m)) for m in mems}
    out = []
    for m in mems:
        own = owns[m.id]
        ctx = set(asked & ctx_terms(m)) - own
        if ctx:
            quoted = [o for o in mems if o.id != m.id and o.content[:80] in (m.context or "")]
            out.append((m, own, ctx, {t for o in quoted for t in ctx & owns[o.id]}))
    return out


def quoted_gives_way(c: dict[str, Any], ids: list[str]) -> dict[str, float]:
    """A memory that matches only through words its context quotes from another candidate that holds them: 0."""
    return {m.id: 0.0 for m, own, ctx, lent in _context_matches(c, ids) if not own and lent == ctx}


def quoted_share(c: dict[str, Any], ids: list[str]) -> dict[str, float]:
    """Own-share (context words 0) only for memories whose context quotes a candidate holding those words."""
    return {
        m.id: (len(own) + len(ctx - lent)) / len(own | ctx)
        for m, own, ctx, lent in _context_matches(c, ids)
        if lent
    }


VARIANTS: dict[str, Scale | None] = {
    "base": None,
    "own share (ctx 0)": own_share(0.0),
    "own share (ctx 0.5)": own_share(0.5),
    "quoted gives way": quoted_gives_way,
    "quoted share": quoted_share,
}


def score(sets: dict[str, list[dict[str, Any]]], extra: Scale | None) -> str:
    per: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, list[float]] = defaultdict(list)
    for c in sets["locomo"]:
        found = {d for h in rank_with(c, 10, extra) for d in c["dia"][h.memory.id]}
        r = sum(e in found for e in c["evidence"]) / len(c["evidence"])
        per[c["fold"]].append(r)
        kinds[rf.LOCOMO_KINDS[c["kind"]]].append(r)
    allr = [x for v in per.values() for x in v]
    out = f"LoCoMo {rf._mean(allr):.4f} (" + " ".join(f"{f} {rf._mean(v):.4f}" for f, v in per.items()) + ") "
    out += " ".join(f"{k[:5]} {rf._mean(v):.3f}" for k, v in sorted(kinds.items()))
    for name in ("pooled", "s"):
        folds_any: dict[int, list[float]] = defaultdict(list)
        folds_all: dict[int, list[float]] = defaultdict(list)
        for c in sets[name]:
            top = set(rf._sessions([c["session"][h.memory.id] for h in rank_with(c, 100, extra)])[:5])
            folds_any[c["fold"]].append(float(bool(c["answers"] & top)))
            folds_all[c["fold"]].append(float(c["answers"] <= top))
        a = [x for v in folds_any.values() for x in v]
        b = [x for v in folds_all.values() for x in v]
        out += f" | {name} {rf._mean(a):.4f}/{rf._mean(b):.4f} all@5 folds " + " ".join(
            f"{rf._mean(folds_all[f]):.2f}" for f in sorted(folds_all)
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lo27/base"))
    parser.add_argument("only", nargs="*")
    args = parser.parse_args()
    sets = {n: pickle.loads((args.cache / f"{n}.pkl").read_bytes()) for n in ("locomo", "pooled", "s")}
    for name, extra in VARIANTS.items():
        if args.only and name not in args.only:
            continue
        print(f"{name:>22}  {score(sets, extra)}", flush=True)


if __name__ == "__main__":
    main()
