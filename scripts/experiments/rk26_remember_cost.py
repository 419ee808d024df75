"""remember's CPU per call, by path, in one process of whichever shitsuji is on PYTHONPATH (rk26).

Paths: a new fact without keys, an exact repeat without keys, an exact repeat with new keys (merged and
re-embedded since rk26; only touched before). Real SQLite file, the real ``use`` embedder unless
``--hash``. Prints one JSON line of medians (ms CPU a call). Run it alternately with the baseline:

    for r in 1 2 3; do
      PYTHONPATH=/tmp/wt-80f9406/src .venv/bin/python scripts/experiments/rk26_remember_cost.py 200
      .venv/bin/python scripts/experiments/rk26_remember_cost.py 200
    done
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import shitsuji
from shitsuji.memory import HashEmbedder, MemoryEngine, USEEmbedder, open_store


def _cpu_ms(call: object) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return (time.process_time() - start) * 1000


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    embedder = HashEmbedder() if "--hash" in sys.argv else USEEmbedder()
    scope = "household/h/user/a"
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "m.db"))
        engine = MemoryEngine(store, embedder)
        engine.remember("warm-up fact", scope)
        texts = [f"Fact number {i}: the {i % 7}th shelf holds item {i * 31 % 997}" for i in range(n)]
        fresh = [_cpu_ms(lambda t=t: engine.remember(t, scope)) for t in texts]
        repeat = [_cpu_ms(lambda t=t: engine.remember(t, scope)) for t in texts]
        keyed = [
            _cpu_ms(lambda t=t, i=i: engine.remember(t, scope, keys=[f"棚{i}", "shelf"]))
            for i, t in enumerate(texts)
        ]
        store.close()
    print(
        json.dumps(
            {
                "code": str(Path(shitsuji.__file__).parent.parent),
                "new_no_keys_ms": round(statistics.median(fresh), 3),
                "repeat_no_keys_ms": round(statistics.median(repeat), 3),
                "repeat_new_keys_ms": round(statistics.median(keyed), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
