"""Run ``shitsuji bench ...`` with every ``MemoryEngine.recall``'s answer written out: per call, the query and
the hits' contents and scores (repr: every bit), one JSON line each — ids are random per run, contents not.

    PYTHONPATH=<tree>/src python scripts/experiments/fl28_dump_recalls.py OUT.jsonl bench locomo DATA --json

Run on two trees and compare the files; a bench on the real clock (LoCoMo) scores recency at a later
time in the second run, so its scores are compared to 9 digits (``fl28_compare_dumps.py``).
"""
import json
import sys

from shitsuji.cli import main
from shitsuji.memory import MemoryEngine

out = open(sys.argv[1], "w")
plain = MemoryEngine.recall


def recall(self, query, scope, **kw):  # type: ignore[no-untyped-def]
    hits = plain(self, query, scope, **kw)
    out.write(json.dumps([query, scope, [(h.memory.content, repr(h.score)) for h in hits]], ensure_ascii=False) + "\n")
    return hits


MemoryEngine.recall = recall  # type: ignore[method-assign]
sys.argv = ["shitsuji", *sys.argv[2:]]
try:
    main()
finally:
    out.close()
