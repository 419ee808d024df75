"""Issue 23 (ja28): a Japanese question's vector variants over the Japanese sets, per query.

Each set is ingested once as ``bench japanese`` does (200 distractors by default), then every
variant's question vector is patched into ``MemoryEngine.recall`` and the queries asked; prints
hit@3 / hit@1 per kind and, per query, the expected fact's rank where it differs from the first
variant's. ``--sets fresh,held,recall,dev`` (ja-unread and ja-blind only when named).

    .venv/bin/python scripts/experiments/ja28_variants.py --sets fresh,held,recall,dev base words nouns
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

import numpy as np

from shitsuji.bench._common import bench_engine
from shitsuji.bench.japanese import HOUSEHOLD, NOW, _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import NewMemory, _engine, lineage
from shitsuji.memory._asked import WORD_VECTORS as _WORD_VECTORS
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import _tokenizer
from shitsuji.memory._text import normalize

ROOT = Path(__file__).resolve().parents[2]
D = ROOT / "src/shitsuji/bench/data"
SETS = {
    "fresh": D / "ja-fresh",
    "held": D / "ja-held",
    "recall": D / "ja-recall",
    "dev": ROOT.parent / "shared/data/ja",
    "unread": D / "ja-unread",
    "blind": D / "ja-blind",
}
_JA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


def _unit(v):
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def words_of(text, keep, proper=False, spelled=False, single=False):
    out = []
    for w in _tokenizer().tokenize(normalize(text)):
        pos = w.part_of_speech()
        if (
            pos[0] not in keep
            or pos[1] == "非自立可能"
            or (pos[1] == "固有名詞" and not proper)
            or pos[1] == "代名詞"
        ):
            continue
        s = w.normalized_form() if spelled and pos[0] == "名詞" else w.surface()
        if len(w.surface()) > 1 or (single and re.match(r"[\u3400-\u9fff]", w.surface())):
            out.append(s)
    return list(dict.fromkeys(out))


def with_words(keep, proper=False, spelled=False, weight=1.0, single=False, plain=False):
    def qv(embedder, text):
        base = embedder.embed_query(text) if plain else question_vector(embedder, text)
        if not _JA.search(text):
            return base
        ws = words_of(text, keep, proper, spelled, single)
        if not ws:
            return base
        _, each = _WORD_VECTORS.of(embedder, text, ws)
        mean = np.mean(np.stack(each), axis=0)
        return _unit(_unit(base) + weight * _unit(mean)).astype(np.float32)

    return qv


def _words_spelled(embedder, text, **kw):
    from shitsuji.memory._asked import WORD_VECTORS
    from shitsuji.memory._asked_ja import japanese_meaning_words
    from shitsuji.memory._readings import kanji_spelling

    base = question_vector(embedder, text, words=False)
    ws = japanese_meaning_words(kanji_spelling(text) or text)
    if not ws:
        return base
    _, each = WORD_VECTORS.of(embedder, text, ws)
    return _unit(_unit(base) + _unit(np.mean(np.stack(each), axis=0))).astype(np.float32)


def _shipped(embedder, text, **kw):
    return question_vector(embedder, text, words=True)


def _off(embedder, text, **kw):
    return question_vector(embedder, text, words=False)


VARIANTS = {
    "off": _off,
    "on": _shipped,
    "words_sp": _words_spelled,
    "base": question_vector,
    "words": with_words({"名詞", "動詞", "形容詞", "形状詞"}),
    "nouns": with_words({"名詞"}),
    "nouns_sp": with_words({"名詞"}, spelled=True),
    "nouns_prop": with_words({"名詞"}, proper=True),
    "nv": with_words({"名詞", "動詞"}),
    "words_plain": with_words({"名詞", "動詞", "形容詞", "形状詞"}, plain=True),
    "words1": with_words({"名詞", "動詞", "形容詞", "形状詞"}, single=True),
    "words_adj": with_words({"名詞", "形容詞", "形状詞"}),
    "nouns_half": with_words({"名詞"}, weight=0.5),
}


def ingest(engine, directory: Path, dist: int = 200):
    """A set's facts and ``dist`` distractors a member, as ``bench japanese`` stores them: (fact ids
    by memory id, the queries)."""
    facts = _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
    facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
    queries = _jsonl(directory / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
    fid = {}
    for f in facts:
        scope = HOUSEHOLD if f.get("shared") else f"{HOUSEHOLD}/user/{f['user']}"
        r = engine.remember(
            f["content"],
            scope,
            category=f.get("category", "misc"),
            created_at=NOW - timedelta(days=float(f.get("days_ago", 0))),
        )
        fid[r.memory.id] = f["id"]
    users = sorted({q["user"] for q in queries})
    engine.add_many(
        NewMemory(content=t, scope=f"{HOUSEHOLD}/user/{u}", created_at=NOW - timedelta(days=i % 400))
        for u in users
        for i, t in enumerate(synthetic_memories(dist, seed=len(u)))
    )
    engine.index_pending()
    return fid, queries


def main() -> None:
    args = sys.argv[1:]
    sets = ["fresh", "held", "recall", "dev"]
    dist = 200
    if "--sets" in args:
        i = args.index("--sets")
        sets = args[i + 1].split(",")
        del args[i : i + 2]
    if "--dist" in args:
        i = args.index("--dist")
        dist = int(args[i + 1])
        del args[i : i + 2]
    doc = None
    if "--doc" in args:
        i = args.index("--doc")
        doc = args[i + 1]
        del args[i : i + 2]
    if doc:
        from shitsuji.memory import _embedding
        from shitsuji.memory._asked import meaning_words

        shipped_ft = _embedding.fact_texts

        def fact_texts(content, keys):
            pieces, text = shipped_ft(content, keys)
            if keys:
                return pieces, text
            ws = (
                words_of(content, {"名詞", "動詞", "形容詞", "形状詞"})
                if _JA.search(content)
                else (meaning_words(content) if doc == "all" else [])
            )
            return pieces, (", ".join(ws) if ws else None)

        _embedding.fact_texts = fact_texts
    variants = [a for a in args if not a.startswith("--")] or ["base", "words"]
    for name in sets:
        with bench_engine("use", clock=lambda: NOW) as engine:
            fid, queries = ingest(engine, SETS[name], dist)
            first = None
            for v in variants:
                _engine.question_vector = VARIANTS[v]
                ranks = []
                by = defaultdict(lambda: [0, 0, 0])
                leaks = 0
                for q in queries:
                    scope = f"{HOUSEHOLD}/user/{q['user']}"
                    hits = engine.recall(q["query"], scope, k=10)
                    leaks += sum(1 for h in hits[:3] if h.memory.scope not in lineage(scope))
                    ids = [fid.get(h.memory.id) for h in hits]
                    pos = next((i for i, x in enumerate(ids) if x in q["expected"]), 99)
                    ranks.append(pos)
                    c = by[q.get("class", "all")]
                    c[0] += 1
                    c[1] += pos < 3
                    c[2] += pos == 0
                n = len(queries)
                h3 = sum(r < 3 for r in ranks) / n
                h1 = sum(r == 0 for r in ranks) / n
                kinds = " ".join(f"{k}:{a[1]}/{a[0]}({a[2]})" for k, a in sorted(by.items()))
                print(f"{name:6} {v:10} hit@3 {h3:.3f} hit@1 {h1:.3f} leaks {leaks}  {kinds}", flush=True)
                if first is None:
                    first = ranks
                    if "--misses" in sys.argv:
                        for q, r in zip(queries, ranks, strict=True):
                            if r >= 3:
                                print(f"        miss {r:2} {q['query']}")
                elif name not in ("unread", "blind") or "--show" in sys.argv:
                    for q, a, b in zip(queries, first, ranks, strict=True):
                        if a != b:
                            print(f"        {a:2} -> {b:2}  {q['query']}")
    _engine.question_vector = question_vector


if __name__ == "__main__":
    main()
