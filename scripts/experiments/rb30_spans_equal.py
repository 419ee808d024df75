"""Issue 23, rb30 (from sp28_spans_equal.py): ``mentioned_spans`` and ``asked_span`` give the base's results on
every dev text, and what ``mentioned_spans`` costs on long texts, base beside branch: the dev texts of 1,000
characters or more, whole LongMemEval sessions and LoCoMo sessions joined into one text, and texts of
n English and n Japanese dated sentences (the worst case of the base's rescans).

    .venv/bin/python scripts/experiments/rb30_spans_equal.py [BASE_SRC]   # default /tmp/rb30/base/src

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
    base = base_module(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rb30/base/src")
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
    # cost per call on long texts, alternating base and branch
    sessions = _sessions()
    for text in sessions:
        for said, zone in SAIDS[:2]:
            assert list(base.mentioned_spans(text, said, zone)) == list(branch.mentioned_spans(text, said, zone))
    print(f"equal on {len(sessions)} joined sessions too")
    groups = {
        "dev texts >= 1000 chars": [t for t in all_texts if len(t) >= 1000],
        "joined sessions": sessions,
        **{
            f"{n} dated sentences": [
                " ".join(
                    f"We will meet on {1 + i % 28} March{'.' if i % 3 else ','} 来月{1 + i % 12}月{1 + i % 28}日に行く予定。"
                    for i in range(n)
                )
            ]
            for n in (10, 100, 1000)
        },
    }
    said, zone = SAIDS[0]
    for label, group in groups.items():
        per: dict[str, list[float]] = {"base": [], "branch": []}
        for _ in range(3):
            for name, module in (("base", base), ("branch", branch)):
                for text in group:
                    t0 = time.process_time_ns()
                    list(module.mentioned_spans(text, said, zone))
                    per[name].append((time.process_time_ns() - t0) / 1e6)
        mb, mr = statistics.median(per["base"]), statistics.median(per["branch"])
        sb, sr = sum(per["base"]) / 3, sum(per["branch"]) / 3
        chars = statistics.median(len(t) for t in group)
        print(
            f"{label}: {len(group)} texts, median {chars:.0f} chars; CPU ms per text median base {mb:.3f} "
            f"branch {mr:.3f} ({mb / mr:.2f}x); all texts base {sb:.1f} branch {sr:.1f} ({sb / sr:.2f}x)"
        )


def _sessions() -> list[str]:
    """Each LongMemEval session (oracle and S dev) and LoCoMo dev session as one text, its turns joined."""
    out: list[str] = []
    d = Path("/work/shared/data")
    for path in (d / "longmemeval/lme-oracle-dev.json", d / "longmemeval/lme-s-dev.json"):
        for q in json.loads(path.read_text(encoding="utf-8")):
            for session in q.get("haystack_sessions") or []:
                out.append("\n".join(str(t.get("content", "")) for t in session))
    for conv in json.loads((d / "locomo/locomo-dev.json").read_text(encoding="utf-8")):
        c = conv.get("conversation", {})
        for key, turns in c.items():
            if key.startswith("session_") and isinstance(turns, list):
                out.append("\n".join(str(t.get("text", "")) for t in turns))
    return list(dict.fromkeys(t for t in out if t))

if __name__ == "__main__":
    main()
