"""What the several-things rule costs in ranking (issue 23, ls28): ``top_hits`` over collected lists,
the rule on and off alternating question by question in one process; rows read and wall time.

    .venv/bin/python scripts/experiments/ls28_rank_cost.py --cache /tmp/ls28/base [--rounds 3]
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from shitsuji.memory._rank import top_hits
from shitsuji.memory._recall import RecallWeights
from shitsuji.memory._several import asks_for_several

ON = RecallWeights()
OFF = replace(ON, several_by_meaning=False)


def once(c: dict[str, Any], w: RecallWeights, k: int) -> tuple[float, int]:
    n = max(w.candidates, k * 3)
    ranked = {"keyword": c["keyword"][:n], "vector": c["vector"][:n]}
    read = 0

    def reader(ids: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
        nonlocal read
        read += len(ids)
        return {i: c["memories"][i] for i in ids if i in c["memories"]}, {
            i: c["vectors"][i] for i in ids if i in c["vectors"]
        }

    start = time.perf_counter()
    top_hits(c["text"], c["asked"], ranked, c["chain"], reader, c["clock"], w, k)
    return time.perf_counter() - start, read


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/ls28/base"))
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    for name in ("s", "pooled"):
        data = pickle.loads((a.cache / f"{name}.pkl").read_bytes())
        for k in (5, 100):
            for subset, rows in (
                ("several", [c for c in data if asks_for_several(c["text"])]),
                ("all", data),
            ):
                t: dict[str, list[float]] = {"off": [], "on": []}
                r: dict[str, list[int]] = {"off": [], "on": []}
                for _ in range(a.rounds):
                    for c in rows:
                        for label, w in (("off", OFF), ("on", ON)):
                            s, n = once(c, w, k)
                            t[label].append(s)
                            r[label].append(n)
                med = {x: statistics.median(t[x]) * 1000 for x in t}
                print(
                    f"{name} k={k} {subset} ({len(rows)} q): ms p50 off {med['off']:.2f} on {med['on']:.2f}"
                    f" (x{med['on'] / med['off']:.2f}); rows read mean off {statistics.mean(r['off']):.1f}"
                    f" on {statistics.mean(r['on']):.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
