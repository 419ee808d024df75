"""Calls a turn by Python function, two cProfile dumps of turn_instructions.py --profile side by side.

usage: calls_diff.py PROF_A PROF_B TURNS [N]   (largest differences in calls first, then in own time)
"""

import pstats
import sys


def calls(path: str) -> dict[str, tuple[int, float]]:
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    out = {}
    for (file, _line, name), (_cc, nc, tt, _ct, _callers) in stats.items():
        key = f"{file.split('/src/')[-1].split('site-packages/')[-1]}:{name}"
        c, t = out.get(key, (0, 0.0))
        out[key] = (c + nc, t + tt)
    return out


a, b = calls(sys.argv[1]), calls(sys.argv[2])
turns = int(sys.argv[3])
n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
zero = (0, 0.0)
print(f"{'B-A':>8} {'A':>8} {'B':>8}  calls a turn")
print(
    f"{(sum(c for c, _ in b.values()) - sum(c for c, _ in a.values())) / turns:>8.1f} "
    f"{sum(c for c, _ in a.values()) / turns:>8.1f} {sum(c for c, _ in b.values()) / turns:>8.1f}  all"
)
for k in sorted(set(a) | set(b), key=lambda k: -abs(b.get(k, zero)[0] - a.get(k, zero)[0]))[:n]:
    ca, cb = a.get(k, zero)[0], b.get(k, zero)[0]
    print(f"{(cb - ca) / turns:>8.1f} {ca / turns:>8.1f} {cb / turns:>8.1f}  {k[:120]}")
