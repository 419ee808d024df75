"""Issue 23, e5en: what each embedder costs — `bench latency` for use, e5 and use+e5, run one after the
other in each round (the order turned every round), medians over rounds and each beside use's.

    .venv/bin/python scripts/experiments/e5en_cost.py [--rounds 3] [--n 5000] [--queries 200] [--out /tmp/e5en/cost]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

NAMES = ["use", "e5", "use+e5"]


def _numbers(data: object, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            out.update(_numbers(value, f"{prefix}{key}."))
    elif isinstance(data, int | float) and not isinstance(data, bool):
        out[prefix.rstrip(".")] = float(data)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("/tmp/e5en/cost"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shitsuji = str(Path(sys.executable).with_name("shitsuji"))
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in NAMES}
    for r in range(args.rounds):
        order = NAMES[r % 3 :] + NAMES[: r % 3]
        for name in order:
            load = Path("/proc/loadavg").read_text().split()[0]
            cmd = [
                shitsuji,
                "--embedder",
                name,
                "bench",
                "latency",
                "--n",
                str(args.n),
                "--queries",
                str(args.queries),
                "--json",
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            (args.out / f"{name.replace('+', '_')}-{r}.json").write_text(done.stdout)
            numbers = _numbers(json.loads(done.stdout))
            runs[name].append(numbers)
            print(f"round {r} {name} load {load}: " + json.dumps(numbers), flush=True)
    keys = sorted(set().union(*(row.keys() for row in runs["use"])))
    print(f"\nmedians of {args.rounds} rounds (ratio to use)")
    for key in keys:
        base = statistics.median(row[key] for row in runs["use"] if key in row)
        cells = []
        for name in NAMES:
            value = statistics.median(row[key] for row in runs[name] if key in row)
            cells.append(f"{name} {value:.4g}" + (f" ({value / base:.2f}x)" if base else ""))
        print(f"{key:>40}: " + "  ".join(cells))


if __name__ == "__main__":
    main()
