"""Pool the rounds of ``bench_pg_side_by_side.sh``: p50 / p95 per side and part, ratios of medians, load,
and the median of the per-query ratios (steadier than pooled quantiles on a busy machine).

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
    for part, (median, low, high, n) in paired(rows).items():
        print(
            f"{part:9s} per-query mine/main (same queries): median {median:.2f}, quartiles {low:.2f}-{high:.2f}, n={n}"
        )
    print(f"load (1 min) during the rounds: {min(loads):.1f}-{max(loads):.1f}")


def paired(rows: list[dict]) -> dict[str, tuple[float, float, float, int]]:  # type: ignore[type-arg]
    """Per part, the ratios mine/main of each query (a round runs the same queries on both sides)."""
    rounds: dict[int, dict[str, dict[str, list[float]]]] = {}
    for row in rows:
        rounds.setdefault(row["out"]["first"], {})[row["side"]] = row["out"]["ms"]
    out = {}
    for part in rows[0]["out"]["ms"]:
        ratios = [
            a / b
            for sides in rounds.values()
            if {"mine", "main"} <= set(sides)
            for a, b in zip(sides["mine"][part], sides["main"][part], strict=True)
            if b > 0
        ]
        if len(ratios) > 1:
            q = statistics.quantiles(ratios, n=4)
            out[part] = (statistics.median(ratios), q[0], q[2], len(ratios))
    return out


if __name__ == "__main__":
    main()
