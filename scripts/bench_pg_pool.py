"""Pool the rounds of ``bench_pg_side_by_side.sh``: p50 / p95 per side and part, ratios of medians, load.

.venv/bin/python scripts/bench_pg_pool.py out.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys


def main() -> None:
    pooled: dict[str, dict[str, list[float]]] = {}
    loads = []
    with open(sys.argv[1], encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    for row in rows:
        loads.append(row["out"]["load"][0])
        for part, values in row["out"]["ms"].items():
            pooled.setdefault(part, {}).setdefault(row["side"], []).extend(values)
    for part, sides in pooled.items():
        cells = {}
        for side, values in sides.items():
            cells[side] = (statistics.median(values), statistics.quantiles(values, n=20)[-1], len(values))
        ratio = cells["mine"][0] / cells["main"][0] if "main" in cells and "mine" in cells else float("nan")
        shown = "  ".join(
            f"{s} p50/p95 {c[0]:.1f}/{c[1]:.1f} ms (n={c[2]})" for s, c in sorted(cells.items())
        )
        print(f"{part:9s} {shown}  mine/main median {ratio:.2f}")
    print(f"load (1 min) during the rounds: {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    main()
