"""Run ``shitsuji bench ...`` with every ``MemoryEngine.recall``'s answer written out: per call, the query and
the hits' contents and scores (repr: every bit), one JSON line each — ids are random per run, contents not.

    PYTHONPATH=<tree>/src python scripts/experiments/fl28_dump_recalls.py OUT.jsonl bench locomo DATA --json

Run on two trees and compare the files (``fl28_compare_dumps.py``). A bench on the real clock (LoCoMo)
scores recency at a later time in the second run; ``FIXED_CLOCK=2026-12-03T00:00:00+00:00`` gives every
engine on the real clock that time, so both runs score bit for bit alike.
"""
import json
import os
import sys
from datetime import datetime

from shitsuji.cli import main
from shitsuji.memory import MemoryEngine
from shitsuji.memory._engine import utcnow

out = open(sys.argv[1], "w")
plain = MemoryEngine.recall


def recall(self, query, scope, **kw):  # type: ignore[no-untyped-def]
    hits = plain(self, query, scope, **kw)
    out.write(json.dumps([query, scope, [(h.memory.content, repr(h.score)) for h in hits]], ensure_ascii=False) + "\n")
    return hits


MemoryEngine.recall = recall  # type: ignore[method-assign]
if fixed := os.environ.get("FIXED_CLOCK"):
    at = datetime.fromisoformat(fixed)
    made = MemoryEngine.__init__

    def init(self, *args, **kw):  # type: ignore[no-untyped-def]
        if kw.get("clock", utcnow) is utcnow:  # the real clock (``bench_engine``'s default), not a bench's own
            kw["clock"] = lambda: at
        made(self, *args, **kw)

    MemoryEngine.__init__ = init  # type: ignore[method-assign]
sys.argv = ["shitsuji", *sys.argv[2:]]
try:
    main()
finally:
    out.close()
