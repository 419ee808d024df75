"""Compare two ``fl28_dump_recalls.py`` files: the same queries, the same hits' contents in the same order,
and the same scores — bit for bit (``exact``), else to 9 significant digits (a bench on the real clock).

    python scripts/experiments/fl28_compare_dumps.py A.jsonl B.jsonl
"""
import json
import sys

a = [json.loads(line) for line in open(sys.argv[1])]
b = [json.loads(line) for line in open(sys.argv[2])]
assert len(a) == len(b), (len(a), len(b))
exact = order = close = 0
for x, y in zip(a, b, strict=True):
    assert x[0] == y[0], (x[0], y[0])
    if x == y:
        exact += 1
    if [c for c, _ in x[2]] == [c for c, _ in y[2]]:
        order += 1
        if all(abs(float(s) - float(t)) <= 1e-9 * max(abs(float(s)), 1e-300) for (_, s), (_, t) in zip(x[2], y[2])):
            close += 1
print(json.dumps({"recalls": len(a), "same_hits_in_order": order, "scores_bit_equal": exact, "scores_within_1e-9": close}))
