"""Issue 23 (kv26): where each cross-lingual question's note ranks without keys — by meaning alone
(``lexical=False``) and fused — on ja-fresh, ja-recall, ja-held and ja-unread with 200 distractors (docs/benchmarks.md,
kv26). ``.venv/bin/python scripts/experiments/kv26_crosslingual_ranks.py``"""

import json, re
from pathlib import Path
from shitsuji.bench import run_japanese
from shitsuji.memory import MemoryEngine

D = Path("src/shitsuji/bench/data")
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
orig = MemoryEngine.recall
state = {}


def recall(self, query, scope, **kw):
    if query in state["watch"]:
        want = state["watch"][query]
        vec = orig(self, query, scope, k=60, lexical=False)
        fused = orig(self, query, scope, k=60)
        vr = [i for i, h in enumerate(vec) if h.memory.content in want]
        fr = [i for i, h in enumerate(fused) if h.memory.content in want]
        cos = [round(h.signals.get("vector", 0), 3) for h in vec if h.memory.content in want]
        kw_ = [round(h.signals.get("keyword", 0), 2) for h in fused if h.memory.content in want]
        print(
            " ",
            query,
            "| note:",
            list(want)[0][:45],
            "| by meaning rank",
            vr,
            "cos",
            cos,
            "top cos",
            round(vec[0].signals["vector"], 3),
            "| fused rank",
            fr,
            "kw",
            kw_,
            flush=True,
        )
    return orig(self, query, scope, **kw)


MemoryEngine.recall = recall
for name in ["ja-fresh", "ja-recall", "ja-held", "ja-unread"]:
    d = D / name
    facts = {json.loads(l)["id"]: json.loads(l)["content"] for l in open(d / "facts-dev.jsonl")}
    qs = [json.loads(l) for l in open(d / "queries-dev.jsonl")]
    state["watch"] = {
        q["query"]: {facts[e] for e in q["expected"]} for q in qs if q.get("class") == "cross-lingual"
    }
    print(name)
    run_japanese(d, embedder="use", distractors=200)
