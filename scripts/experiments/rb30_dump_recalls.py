"""``fl28_dump_recalls.py`` with each recall's rows read: per call, the query, the hits' contents and score reprs,
the candidates, the rows ``top_hits`` read and whether the question names a span (one JSON line each).

    PYTHONPATH=<tree>/src FIXED_CLOCK=2026-12-03T00:00:00+00:00 \
        python scripts/experiments/rb30_dump_recalls.py OUT.jsonl bench locomo DATA --json

Compare two files with ``rb30_compare_dumps.py``.
"""
import json
import os
import sys
from datetime import datetime

from shitsuji.cli import main
from shitsuji.memory import MemoryEngine
from shitsuji.memory import _engine
from shitsuji.memory._engine import utcnow
from shitsuji.memory._when import asked_span

out = open(sys.argv[1], "w")
plain = MemoryEngine.recall
plain_top = _engine.top_hits
last: dict = {}


def top_hits(text, asked, ranked, chain, read, now, w, k, zone=None, facts=None):  # type: ignore[no-untyped-def]
    ids = {m.memory_id for matches in ranked.values() for m in matches}
    n = [0]

    def counted(some):  # type: ignore[no-untyped-def]
        n[0] += len(some)
        return read(some)

    hits = plain_top(text, asked, ranked, chain, counted, now, w, k, zone, facts)
    last.update(candidates=len(ids), read=n[0], span=asked_span(text, now, zone) is not None)
    return hits


def recall(self, query, scope, **kw):  # type: ignore[no-untyped-def]
    last.clear()
    hits = plain(self, query, scope, **kw)
    row = [query, scope, [(h.memory.content, repr(h.score)) for h in hits], last.get("candidates"), last.get("read"), last.get("span")]
    out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return hits


_engine.top_hits = top_hits  # type: ignore[assignment]
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
