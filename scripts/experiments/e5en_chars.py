"""Issue 23, e5en: embedding cost of LongMemEval_S turns per embedder — CPU seconds (this process, all
threads) and wall seconds for the same turns, as chars/s; run with OMP_NUM_THREADS=1 on a shared machine.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/experiments/e5en_chars.py [--turns 64] [use e5 use+e5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from shitsuji.memory import load_embedder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", default=["use", "e5", "use+e5"])
    parser.add_argument("--turns", type=int, default=64)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/longmemeval/lme-s-dev.json"))
    args = parser.parse_args()
    questions = json.loads(args.data.read_text())
    texts = [
        f"{t['role']}: {t['content'].strip()}"
        for s in questions[0]["haystack_sessions"]
        for t in s
        if t["content"].strip()
    ][: args.turns]
    chars = sum(len(t) for t in texts)
    print(f"{len(texts)} turns, {chars} chars, load {Path('/proc/loadavg').read_text().split()[0]}")
    for name in args.names:
        model = load_embedder(name)
        model.embed_documents(texts[:2])  # loaded
        cpu, wall = time.process_time(), time.perf_counter()
        for start in range(0, len(texts), 16):
            model.embed_documents(texts[start : start + 16])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"{name}: {chars / cpu:,.0f} chars per CPU second, {chars / wall:,.0f} chars/s wall ({cpu:.1f} s CPU, {wall:.1f} s)"
        )


if __name__ == "__main__":
    main()
