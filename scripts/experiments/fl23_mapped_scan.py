"""Scan CPU over a vector snapshot's read-only mapping beside a private copy, alternating in one process.

    python scripts/experiments/fl23_mapped_scan.py <db>.vectors/<model> [ROUNDS]

Prints the CPU p50 of ``matrix @ query`` for each, their ratio, and from ``/proc/self/smaps`` how much
of the mapping is in 2 MiB pages (``FilePmdMapped``) and of the copy (``AnonHugePages``): the ratio
follows the page size (docs/benchmarks.md, issue 23 fl23). Linux only.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from shitsuji.memory._mapped import read_arrays


def main() -> None:
    file = next(Path(sys.argv[1]).glob("*.arrays"))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    mapped = read_arrays(file)[1]["vectors"]
    copy = np.array(mapped)
    query = np.random.default_rng(1).standard_normal(mapped.shape[1]).astype(np.float32)
    cpu: dict[str, list[float]] = {"mapped": [], "copy": []}
    for _ in range(rounds):
        for name, matrix in (("mapped", mapped), ("copy", copy)):
            for _ in range(5):
                c = time.process_time()
                matrix @ query
                cpu[name].append((time.process_time() - c) * 1000)
    smaps = Path(f"/proc/{os.getpid()}/smaps").read_text()
    file_pmd = [
        int(kb)
        for block in re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", smaps)
        if ".arrays" in block.split("\n")[0]
        for kb in re.findall(r"FilePmdMapped:\s+(\d+)", block)
    ]
    anon_huge = sum(int(kb) for kb in re.findall(r"AnonHugePages:\s+(\d+)", smaps))
    medians = {k: round(float(np.median(v)), 2) for k, v in cpu.items()}
    print(
        medians,
        "ratio",
        round(medians["mapped"] / medians["copy"], 3),
        "FilePmdMapped kB",
        file_pmd,
        "AnonHugePages kB",
        anon_huge,
        "load",
        round(os.getloadavg()[0], 1),
    )


if __name__ == "__main__":
    main()
