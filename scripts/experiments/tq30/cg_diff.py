"""Instructions a turn by C function, two callgrind dumps side by side (largest differences first).

usage: cg_diff.py DUMP_A DUMP_B TURNS [N]   (callgrind_annotate must be on PATH)
"""

import collections
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[(.*)\])?$")


def functions(dump: str) -> collections.Counter[str]:
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", dump], capture_output=True, text=True, check=True
    ).stdout
    out: collections.Counter[str] = collections.Counter()
    for line in text.splitlines():
        if (m := LINE.match(line)) and "PROGRAM TOTALS" not in line:
            where = m.group(2).split("/")[-1]
            lib = (m.group(3) or "").split("/")[-1]
            out[f"{where} [{lib}]"] += int(m.group(1).replace(",", ""))
    return out


a, b = functions(sys.argv[1]), functions(sys.argv[2])
turns = int(sys.argv[3])
n = int(sys.argv[4]) if len(sys.argv) > 4 else 30
print(f"{'B-A':>10} {'A':>10} {'B':>10}  instructions a turn")
print(
    f"{(sum(b.values()) - sum(a.values())) / turns:>10.0f} {sum(a.values()) / turns:>10.0f} {sum(b.values()) / turns:>10.0f}  all"
)
for k in sorted(set(a) | set(b), key=lambda k: -abs(b[k] - a[k]))[:n]:
    print(f"{(b[k] - a[k]) / turns:>10.0f} {a[k] / turns:>10.0f} {b[k] / turns:>10.0f}  {k[:110]}")
