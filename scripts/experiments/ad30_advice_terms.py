"""ad30: every dev question's keyword terms and span words, to compare two versions of the code.
usage: PYTHONPATH=<other src> python ad30_advice_terms.py OUT.json   (then diff the two outputs)"""

import glob
import itertools
import json
import os
import sys

from shitsuji.memory._advice import asked_terms
from shitsuji.memory._recall import RecallWeights
from shitsuji.memory._when import span_words

S = "/work/shared/data"
DATA = os.path.join(os.path.dirname(__file__), "../../src/shitsuji/bench/data")


def questions():
    for conv in json.load(open(f"{S}/locomo/locomo-dev.json")):
        for q in conv["qa"]:
            yield "locomo", q["question"]
    for f in ("lme-s-dev", "lme-oracle-dev"):
        for q in json.load(open(f"{S}/longmemeval/{f}.json")):
            yield f, q["question"]
    for d in [f"{S}/ja", *sorted(glob.glob(f"{DATA}/ja-*"))]:
        for line in open(f"{d}/queries-dev.jsonl"):
            yield os.path.basename(d), json.loads(line)["query"]
    for h in json.load(open(f"{DATA}/time_questions.json"))["households"]:
        for q in h["questions"]:
            yield "time", q["text"]
    for f in glob.glob(f"{DATA}/hook_relevance*.json"):
        for p in json.load(open(f)).get("prompts", []):
            yield "hook", p if isinstance(p, str) else (p.get("prompt") or p.get("text"))


w = RecallWeights()
out = []
for s, q in itertools.chain(questions()):
    m = span_words(q)
    out.append([s, q, asked_terms(q, w), None if m is None else m.group()])
json.dump(out, open(sys.argv[1], "w"), ensure_ascii=False)
print(len(out), "questions")
