"""For each miss of a set (200 distractors, no keys): where the expected fact stands, its signals, the top 3's."""
import json, sys
from datetime import timedelta
from pathlib import Path
import ja27_variants  # noqa: F401
from shitsuji.bench.japanese import _jsonl, HOUSEHOLD, NOW
from shitsuji.bench._common import bench_engine
from shitsuji.bench.latency import synthetic_memories
from shitsuji.config import DEFAULT_EMBEDDER
from shitsuji.memory import NewMemory
from shitsuji.memory._text import terms
d = Path(sys.argv[1]); dist = int(sys.argv[2]) if len(sys.argv) > 2 else 200
facts = _jsonl(d / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
facts.sort(key=lambda f: -float(f.get("days_ago", 0)))
queries = _jsonl(d / "queries-dev.jsonl", {"user": str, "query": str, "expected": list})
with bench_engine(DEFAULT_EMBEDDER, clock=lambda: NOW) as engine:
    fid = {}
    for f in facts:
        scope = HOUSEHOLD if f.get("shared") else f"{HOUSEHOLD}/user/{f['user']}"
        r = engine.remember(f["content"], scope, category=f.get("category", "misc"), created_at=NOW - timedelta(days=float(f.get("days_ago", 0))))
        fid[r.memory.id] = f["id"]
    users = sorted({q["user"] for q in queries})
    engine.add_many(NewMemory(content=t, scope=f"{HOUSEHOLD}/user/{u}", created_at=NOW - timedelta(days=i % 400)) for u in users for i, t in enumerate(synthetic_memories(dist, seed=len(u))))
    engine.index_pending()
    for q in queries:
        hits = engine.recall(q["query"], f"{HOUSEHOLD}/user/{q['user']}", k=60)
        ids = [fid.get(h.memory.id) for h in hits]
        if set(ids[:3]) & set(q["expected"]):
            continue
        pos = [i for i, x in enumerate(ids) if x in q["expected"]]
        print(f"\nMISS [{q.get('class')}] {q['query']}  qterms={terms(q['query'])}")
        p = pos[0] if pos else None
        show = list(range(3)) + ([p] if p is not None else [])
        for i in show:
            h = hits[i]
            print(f"  {i:2} {h.score:.3f} {dict((k, round(v,3)) for k,v in h.signals.items())} {'*' if i==p else ' '} {h.memory.content[:70]}")
        if p is None:
            print("   expected not in top 60")
