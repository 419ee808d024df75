"""Compare two ``rb30_dump_recalls.py`` files: the same queries, the same hits' contents in the same order and the
same score reprs (bit for bit); and the rows read, for span questions and others (sum, mean, max).

    python scripts/experiments/rb30_compare_dumps.py BASE.jsonl NEW.jsonl
"""
import json
import sys

a = [json.loads(line) for line in open(sys.argv[1])]
b = [json.loads(line) for line in open(sys.argv[2])]
assert len(a) == len(b), (len(a), len(b))
same = 0
rows: dict = {}
for x, y in zip(a, b, strict=True):
    assert x[0] == y[0], (x[0], y[0])
    same += x[:3] == y[:3]
    kind = "span" if y[5] else "other"
    r = rows.setdefault(kind, {"n": 0, "candidates": 0, "read_base": 0, "read_new": 0, "max_new": 0})
    r["n"] += 1
    r["candidates"] += x[3] or 0
    r["read_base"] += x[4] or 0
    r["read_new"] += y[4] or 0
    r["max_new"] = max(r["max_new"], y[4] or 0)
for r in rows.values():
    r["per_recall_base"] = round(r["read_base"] / r["n"], 1)
    r["per_recall_new"] = round(r["read_new"] / r["n"], 1)
print(json.dumps({"recalls": len(a), "hits_and_scores_equal": same, "rows": rows}))
