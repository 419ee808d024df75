"""Recall's lists for every query of a Japanese set, kept, then ranked again (issue 23, e5ja).

    .venv/bin/python scripts/experiments/e5ja_lists.py collect EMBEDDER SET [DISTRACTORS] [--cache DIR]
    .venv/bin/python scripts/experiments/e5ja_lists.py show EMBEDDER SET [DISTRACTORS] [--cache DIR]

``collect`` builds the store as ``bench japanese`` does (same facts, dates, distractors, NOW) with the
named embedder, and keeps per query what ``MemoryEngine.recall`` ranks: the keyword and vector lists
(60 each, ``store.candidates``), the rows and vectors they name, the chain. ``show`` ranks them again
with ``_rank.rank_candidates`` (the function recall calls) and prints each query's rank of its first
expected fact, with the top 3, as JSON lines; its hit@3 equals the bench's (checked in the section).
"""

from __future__ import annotations

import json
import pickle
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from shitsuji.bench._common import bench_engine
from shitsuji.bench.japanese import HOUSEHOLD, NOW, _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import NewMemory, lineage, load_embedder
from shitsuji.memory._advice import asked_terms
from shitsuji.memory._asked import embed_queries
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._rank import Candidates, rank_candidates
from shitsuji.memory._recall import RecallWeights

SETS = {"dev": Path("/work/shared/data/ja")}
DATA = Path(__file__).resolve().parents[2] / "src/shitsuji/bench/data"


def set_dir(name: str) -> Path:
    return SETS.get(name) or DATA / f"ja-{name}"


class Cached:
    """The named embedder with its vectors kept on disk by (kind, text): every set's distractors are the
    same few hundred texts (``synthetic_memories`` seeded by the name's length), so each is embedded once
    across sets and runs. The vectors are the model's own, bit for bit."""

    def __init__(self, name: str, cache: Path) -> None:
        self._inner = load_embedder(name)
        self.model_id = self._inner.model_id
        self.dedupe_threshold = self._inner.dedupe_threshold
        cc = getattr(self._inner, "close_cosine", None)
        if cc is not None:
            self.close_cosine = cc
        self._path = cache / f"vectors-{name}.pkl"
        self._kept: dict[tuple[str, str], Any] = (
            pickle.loads(self._path.read_bytes()) if self._path.exists() else {}
        )

    def save(self) -> None:
        self._path.write_bytes(pickle.dumps(self._kept))

    def embed_documents(self, texts: Sequence[str]) -> Any:
        new = list(dict.fromkeys(t for t in texts if ("d", t) not in self._kept))
        if new:
            self._kept.update(zip((("d", t) for t in new), self._inner.embed_documents(new), strict=True))
        return np.stack([self._kept["d", t] for t in texts]) if texts else self._inner.embed_documents([])

    def embed_queries(self, texts: Sequence[str]) -> Any:
        new = list(dict.fromkeys(t for t in texts if ("q", t) not in self._kept))
        if new:
            made = embed_queries(self._inner, new)
            self._kept.update(zip((("q", t) for t in new), made, strict=True))
        return np.stack([self._kept["q", t] for t in texts])

    def embed_query(self, text: str) -> Any:
        return self.embed_queries([text])[0]


def collect(embedder: Any, name: str, distractors: int) -> dict[str, Any]:
    d = set_dir(name)
    facts = _jsonl(d / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
    facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
    queries = _jsonl(d / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
    out: dict[str, Any] = {"queries": []}
    with bench_engine(embedder, clock=lambda: NOW) as engine:
        fact_of: dict[str, str] = {}
        for f in facts:
            scope = HOUSEHOLD if f.get("shared") else f"{HOUSEHOLD}/user/{f['user']}"
            r = engine.remember(
                f["content"],
                scope,
                category=f.get("category", "misc"),
                created_at=NOW - timedelta(days=float(f.get("days_ago", 0))),
            )
            fact_of[r.memory.id] = f["id"]
        users = sorted({q["user"] for q in queries})
        engine.add_many(
            NewMemory(content=t, scope=f"{HOUSEHOLD}/user/{u}", created_at=NOW - timedelta(days=i % 400))
            for u in users
            for i, t in enumerate(synthetic_memories(distractors, seed=len(u)))
        )
        engine.index_pending()
        w = engine.ranking_weights()
        out["weights"] = w
        out["model"] = engine.embedder.model_id
        for q in queries:
            scope = f"{HOUSEHOLD}/user/{q['user']}"
            chain = lineage(scope)
            text = q["query"].strip()
            asked = asked_terms(text, w)
            vector = question_vector(engine.embedder, text, words=w.word_meanings)
            ranked = engine.store.candidates(asked, engine.embedder.model_id, vector, chain, w.candidates)
            ids = list(dict.fromkeys(m.memory_id for ms in ranked.values() for m in ms))
            memories, vectors = engine.store.memories_with_vectors(ids, engine.embedder.model_id)
            out["queries"].append(
                {
                    "q": q,
                    "cands": Candidates(text, asked, ranked, memories, vectors, chain),
                    "qvec": vector,
                }
            )
        out["fact_of"] = fact_of
    return out


def show(data: dict[str, Any], w: RecallWeights | None = None, k: int = 3) -> list[dict[str, Any]]:
    w = w or data["weights"]
    rows = []
    for item in data["queries"]:
        q, c = item["q"], item["cands"]
        hits = rank_candidates(c, NOW, w)
        ids = [data["fact_of"].get(h.memory.id) for h in hits]
        rank = next((i for i, x in enumerate(ids) if x in q["expected"]), None)
        leak = sum(1 for h in hits[:k] if h.memory.scope not in c.chain)
        rows.append(
            {
                "query": q["query"],
                "class": q.get("class", "all"),
                "rank": rank,
                "leak": leak,
                "top": [
                    (round(h.score, 3), {s: round(v, 3) for s, v in h.signals.items()}, h.memory.content[:60])
                    for h in hits[:3]
                ],
                "expected": next(
                    (
                        (
                            round(h.score, 3),
                            {s: round(v, 3) for s, v in h.signals.items()},
                            h.memory.content[:60],
                        )
                        for h in hits
                        if data["fact_of"].get(h.memory.id) in q["expected"]
                    ),
                    None,
                ),
            }
        )
    return rows


def summary(rows: list[dict[str, Any]], k: int = 3) -> dict[str, Any]:
    by: dict[str, list[int]] = {}
    for r in rows:
        by.setdefault(r["class"], [0, 0, 0])
        by[r["class"]][0] += 1
        by[r["class"]][1] += r["rank"] is not None and r["rank"] < k
        by[r["class"]][2] += r["rank"] == 0
    n = len(rows)
    return {
        "hit": round(sum(v[1] for v in by.values()) / n, 3),
        "hit1": round(sum(v[2] for v in by.values()) / n, 3),
        "kinds": {c: f"{v[1]}/{v[0]} ({v[2]})" for c, v in sorted(by.items())},
        "leaks": sum(r["leak"] for r in rows),
    }


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cache = (
        Path(sys.argv[sys.argv.index("--cache") + 1]) if "--cache" in sys.argv else Path("/tmp/e5ja/lists")
    )
    args = [a for a in args if a != str(cache)]
    what, embedder, name = args[:3]
    distractors = int(args[3]) if len(args) > 3 else (0 if name == "dev" else 200)
    path = cache / f"{embedder}-{name}-{distractors}.pkl"
    if what == "collect":
        cache.mkdir(parents=True, exist_ok=True)
        cached = Cached(embedder, cache)
        for one in name.split(","):
            path = cache / f"{embedder}-{one}-{distractors if one != 'dev' else 0}.pkl"
            path.write_bytes(pickle.dumps(collect(cached, one, distractors if one != "dev" else 0)))
            cached.save()
        return
    data = pickle.loads(path.read_bytes())
    w = data["weights"]
    for kv in [a for a in sys.argv[1:] if a.startswith("--w.")]:
        key, value = kv[4:].split("=")
        w = replace(w, **{key: type(getattr(w, key))(value)})
    rows = show(data, w)
    for r in rows:
        print(json.dumps(r, ensure_ascii=False))
    print(json.dumps(summary(rows), ensure_ascii=False))


if __name__ == "__main__":
    main()
