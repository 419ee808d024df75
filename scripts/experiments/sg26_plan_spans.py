"""Every dev-set question (pooled LongMemEval, LongMemEval_S, LoCoMo, the Japanese sets) whose time word
names a span that holds today or later, and the span this tree's ``asked_span`` reads from it (issue 23, sg26).

    .venv/bin/python scripts/experiments/sg26_plan_spans.py   # from the repository root
"""
import json, sys, glob
from datetime import UTC, datetime
sys.path.insert(0, "src")
from shitsuji.memory import _when as new
qs = []
for f in ["lme-oracle-dev.json", "lme-s-dev.json"]:
    for q in json.load(open(f"../shared/data/longmemeval/{f}")):
        qs.append((f, q["question"]))
for c in json.load(open("../shared/data/locomo/locomo-dev.json")):
    for qa in c["qa"]:
        qs.append(("locomo", str(qa["question"])))
for f in glob.glob("../shared/data/ja/queries*.jsonl") + glob.glob("src/shitsuji/bench/data/ja-*/queries*.jsonl"):
    for line in open(f):
        r = json.loads(line); qs.append((f.split("/")[-2], r.get("query") or r.get("text") or ""))
now = datetime(2026, 12, 2, 20, tzinfo=UTC)
import shitsuji.memory._when as w
print(len(qs), "questions")
for src, q in qs:
    m = w._RELATIVE.search(q)
    if m and (m.group("today") or m.group("thisweek") or m.group("thismonth") or m.group("thisyear") or (m.group("season") and ((m.group("which") or "").lower()=="this" or m.group("jwhich")=="今年"))):
        print(src, "|", q, "|", m.group(0), "|", new.asked_span(q, now))
