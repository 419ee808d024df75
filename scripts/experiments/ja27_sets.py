"""Run every Japanese set without keys (0 and 200 distractors); per-kind hits; misses (not for ja-unread unless --show-unread)."""
import json, sys, time
from pathlib import Path
import ja27_variants  # noqa: F401  (VARIANT=flat,latin,kanji,kanjisum,scriptcov patches the code on sys.path)
from shitsuji.bench import run_japanese
from shitsuji.config import DEFAULT_EMBEDDER
import shitsuji
D = Path(__file__).resolve().parents[2] / "src/shitsuji/bench/data"
SETS = {"fresh": D / "ja-fresh", "held": D / "ja-held", "recall": D / "ja-recall", "dev": Path(__file__).resolve().parents[3] / "shared/data/ja", "unread": D / "ja-unread", "blind": D / "ja-blind"}
args = sys.argv[1:]
show_unread = "--show-unread" in args
args = [a for a in args if not a.startswith("--")]
names = args or list(SETS)
out = {}
print("code:", shitsuji.__file__, file=sys.stderr)
for name in names:
    for dist in (0, 200):
        t = time.time()
        r = run_japanese(SETS[name], embedder=DEFAULT_EMBEDDER, distractors=dist)
        kinds = " ".join(f"{c}:{round(b['hit']*b['n'])}/{b['n']}({round(b['hit_at_1']*b['n'])})" for c, b in r["by_class"].items())
        print(f"{name:7} d={dist:3} hit@3 {r['hit']:.3f} hit@1 {r['hit_at_1']:.3f} leaks {r['cross_user_hits']}  {kinds}  [{time.time()-t:.0f}s]", flush=True)
        if name != "unread" or show_unread:
            for m in r["misses"]:
                print("     miss:", m, flush=True)
        out[f"{name}/{dist}"] = r
json.dump(out, sys.stderr, ensure_ascii=False)
