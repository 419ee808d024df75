"""Precision and recall of the safety detectors on labelled household chat.

The directory holds ``input.jsonl`` (messages people send: personal data, injection
phrases, and benign household chat with amounts, dates, postal codes, order and tracking
numbers) and ``output.jsonl`` (replies and memory text: secrets, and benign text that
looks like them). Each line is ``{"text": …, "kinds": [expected kinds]}``; an empty list
means nothing should be found. A message counts once per kind.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import UserInputError
from ..safety import find_pii as _find_pii
from ..safety import find_sensitive, neutralise, non_overlapping


def _input_kinds(text: str) -> set[str]:
    kinds = {f.kind for f in non_overlapping(_find_pii(text))}
    return kinds | ({"injection"} if neutralise(text)[1] else set())


def _output_kinds(text: str) -> set[str]:
    return {f.kind for f in find_sensitive(text)}


def read_labelled(path: Path) -> list[tuple[str, set[str]]]:
    """``(text, expected kinds)`` per line; a clear error for a file of another shape."""
    rows: list[tuple[str, set[str]]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            text, kinds = item["text"], item["kinds"]
            if not isinstance(text, str) or not isinstance(kinds, list):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            raise UserInputError(f'{path} line {number}: expected {{"text": "…", "kinds": [...]}}') from None
        rows.append((text, {str(k) for k in kinds}))
    return rows


def score(rows: Iterable[tuple[str, set[str]]], detect: Callable[[str], set[str]]) -> dict[str, Any]:
    """Per kind: tp/fp/fn, precision, recall; and how many benign messages had any finding."""
    counts: dict[str, dict[str, int]] = {}
    benign = benign_flagged = n = 0
    false_alarms: list[str] = []
    started = time.perf_counter()
    for text, expected in rows:
        n += 1
        found = detect(text)
        if not expected:
            benign += 1
            benign_flagged += bool(found)
        for kind in expected | found:
            c = counts.setdefault(kind, {"tp": 0, "fp": 0, "fn": 0})
            if kind in expected and kind in found:
                c["tp"] += 1
            elif kind in found:
                c["fp"] += 1
                false_alarms.append(f"{kind}: {text}")
            else:
                c["fn"] += 1
    elapsed = time.perf_counter() - started
    by_kind = {
        kind: {
            **c,
            "precision": round(c["tp"] / (c["tp"] + c["fp"]), 4) if c["tp"] + c["fp"] else 1.0,
            "recall": round(c["tp"] / (c["tp"] + c["fn"]), 4) if c["tp"] + c["fn"] else 1.0,
        }
        for kind, c in sorted(counts.items())
    }
    return {
        "messages": n,
        "benign": benign,
        "benign_flagged": benign_flagged,
        "us_per_message": round(elapsed / n * 1e6, 1) if n else 0.0,
        "by_kind": by_kind,
        "false_alarms": false_alarms,
    }


def bare_numbers(n: int = 10_000, seed: int = 7) -> dict[str, float]:
    """How often a random number with no words around it is taken for a My Number or a card."""
    rng = random.Random(seed)
    twelve = sum(bool(_find_pii(f"{rng.randrange(10**11, 10**12)} です", ("my_number",))) for _ in range(n))
    sixteen = sum(bool(_find_pii(f"No. {rng.randrange(10**15, 10**16)}", ("credit_card",))) for _ in range(n))
    return {"my_number_12_digits": round(twelve / n, 4), "credit_card_16_digits": round(sixteen / n, 4)}


def run_safety(directory: Path) -> dict[str, Any]:
    return {
        "input": score(read_labelled(directory / "input.jsonl"), _input_kinds),
        "output": score(read_labelled(directory / "output.jsonl"), _output_kinds),
        "bare_numbers": bare_numbers(),
    }
