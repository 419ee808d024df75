"""Issue 23, sp28: ``mentioned_spans`` and ``asked_span`` give the base's results on every dev text,
and what each costs, base beside branch.

    .venv/bin/python scripts/experiments/sp28_spans_equal.py [BASE_SRC]   # default /tmp/wt-a3c941b/src

Every string in the dev data (LongMemEval oracle and S, LoCoMo, the Japanese sets) is read, with
several said dates and zones; the base module is loaded from BASE_SRC under another name.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from shitsuji.memory import _when as branch

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    *Path("/work/shared/data").rglob("*.json"),
    *Path("/work/shared/data").rglob("*.jsonl"),
    *(ROOT / "src/shitsuji/bench/data").rglob("*.json"),
    *(ROOT / "src/shitsuji/bench/data").rglob("*.jsonl"),
]


def base_module(src: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "shitsuji.memory._when_base", Path(src) / "shitsuji/memory/_when.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def texts() -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(FILES):
        raw = path.read_text(encoding="utf-8")
        values = (
            [json.loads(line) for line in raw.splitlines() if line.strip()]
            if path.suffix == ".jsonl"
            else [json.loads(raw)]
        )
        for v in values:
            for s in strings(v):
                seen.setdefault(s, None)
    return list(seen)


SAIDS = [
    (datetime(2023, 5, 20, 13, 56, tzinfo=UTC), UTC),
    (datetime(2026, 12, 1, 0, 30, tzinfo=timezone(timedelta(hours=9))), timezone(timedelta(hours=9))),
    (datetime(2024, 2, 29, 23, 59, tzinfo=UTC), timezone(timedelta(hours=-5))),
    (datetime(2026, 1, 4, 12, 0, tzinfo=UTC), UTC),
]


def main() -> None:
    base = base_module(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wt-a3c941b/src")
    assert base.mentioned_spans is not branch.mentioned_spans
    all_texts = texts()
    print(f"{len(all_texts)} distinct strings from {len(FILES)} files")
    spans = asks = 0
    for text in all_texts:
        for said, zone in SAIDS:
            a = list(base.mentioned_spans(text, said, zone))
            b = list(branch.mentioned_spans(text, said, zone))
            assert a == b, (text[:200], said, a, b)
            spans += len(a)
            q = base.asked_span(text, said, zone)
            assert q == branch.asked_span(text, said, zone), text[:200]
            asks += q is not None
    print(f"equal: {spans} spans, {asks} asked spans over {len(all_texts) * len(SAIDS)} (text, said) pairs")
    # cost per call on the long texts (turns), alternating base and branch
    long = [t for t in all_texts if len(t) >= 1000]
    said, zone = SAIDS[0]
    per: dict[str, list[float]] = {"base": [], "branch": []}
    for _ in range(3):
        for name, module in (("base", base), ("branch", branch)):
            for text in long:
                t0 = time.process_time_ns()
                list(module.mentioned_spans(text, said, zone))
                per[name].append((time.process_time_ns() - t0) / 1e6)
    mb, mr = statistics.median(per["base"]), statistics.median(per["branch"])
    chars = statistics.median(len(t) for t in long)
    print(
        f"{len(long)} texts >= 1000 chars (median {chars:.0f}): CPU ms per mentioned_spans median base {mb:.3f} branch {mr:.3f} ratio {mb / mr:.1f}x"
    )
    print(f"  mean base {statistics.fmean(per['base']):.3f} branch {statistics.fmean(per['branch']):.3f}")


if __name__ == "__main__":
    main()
