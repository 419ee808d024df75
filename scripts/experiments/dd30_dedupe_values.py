"""dd30: what the value check on semantic dedupe (``_values.same_values``) changes, beside the base rule.

Base = the same code with ``same_values`` answering True (any vector-near match is a duplicate, the
rule before dd30), run in the same process:

1. LoCoMo dev ingest as ``bench locomo`` does it (``use``): rows and which turns each row holds —
   identical groupings mean identical LoCoMo figures (recall sees the same rows).
2. ``bench extraction``'s offline check (hash embedder): its figures.
3. Cost per ``remember`` (``use``, SQLite): medians over alternating rounds, ratio to base, for
   new facts (no near match: the check never runs), paraphrases of a stored fact (a duplicate either
   way: the check's own cost) and new values (a duplicate touched under base, a row stored under dd30).

    .venv/bin/python scripts/experiments/dd30_dedupe_values.py /work/shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

from shitsuji.bench._common import bench_engine
from shitsuji.bench.extraction import run_extraction_check
from shitsuji.bench.locomo import _remember_turns, load, turns
from shitsuji.memory import _engine, load_embedder
from shitsuji.memory._values import same_values

REAL = same_values


def base(on: bool) -> None:
    _engine.same_values = (lambda a, b: True) if on else REAL  # type: ignore[assignment]


def locomo(path: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for mode in ("base", "dd30"):
        base(mode == "base")
        groups = []
        with bench_engine("use") as engine:
            for sample in load(path):
                scope = f"bench/locomo/{sample.get('sample_id', 'sample')}"
                dia = _remember_turns(engine, scope, turns(sample))
                groups.extend(tuple(sorted(v)) for v in dia.values())
        out[mode] = sorted(groups)
    base(False)
    merged = sum(1 for g in out["dd30"] if len(g) > 1)  # type: ignore[union-attr]
    return {
        "rows_base": len(out["base"]),  # type: ignore[arg-type]
        "rows_dd30": len(out["dd30"]),  # type: ignore[arg-type]
        "rows_holding_more_than_one_turn_dd30": merged,
        "same_groupings": out["base"] == out["dd30"],
    }


def extraction(path: Path) -> dict[str, object]:
    out = {}
    for mode in ("base", "dd30"):
        base(mode == "base")
        data = run_extraction_check(path)
        out[mode] = {k: v for k, v in data.items() if isinstance(v, int | float)}
    base(False)
    return out


FACTS = [
    f"Note {i}: the {w} is kept in drawer {i % 7}" for i, w in enumerate(["key", "charger", "passport"] * 40)
]
NEAR = [
    ("The deploy day is Tuesday", "The deploy day is Thursday"),
    ("The deploy day is Tuesday", "The deploy day is on Tuesday"),
    ("燃えるゴミの日は毎週火曜日です", "燃えるゴミの日は毎週木曜日です"),
    ("妻は紅茶が好き", "妻は紅茶が大好き"),
    ("夕食は毎日7時", "夕食は毎日8時"),
    ("My wife loves green tea", "My wife really likes green tea"),
]


def cost(rounds: int = 7) -> dict[str, object]:
    model = load_embedder("use")
    kinds = ("new", "near_paraphrase", "near_new_value")
    times: dict[str, dict[str, list[float]]] = {m: {k: [] for k in kinds} for m in ("base", "dd30")}
    for r in range(rounds):
        for mode in ("base", "dd30") if r % 2 == 0 else ("dd30", "base"):
            base(mode == "base")
            with bench_engine(model) as engine:
                for n, fact in enumerate(FACTS):
                    start = time.perf_counter()
                    engine.remember(fact, f"s{n % 3}")
                    times[mode]["new"].append(time.perf_counter() - start)
                for n, (old, new) in enumerate(NEAR * 5):
                    scope = f"near{n}"
                    engine.remember(old, scope)
                    start = time.perf_counter()
                    engine.remember(new, scope)
                    # a paraphrase is a duplicate either way (same work); a new value is a row under dd30
                    kind = "near_new_value" if REAL(old, new) is False else "near_paraphrase"
                    times[mode][kind].append(time.perf_counter() - start)
    base(False)
    out: dict[str, object] = {}
    for kind in kinds:
        b, d = statistics.median(times["base"][kind]), statistics.median(times["dd30"][kind])
        out[kind] = {"base_ms": round(b * 1000, 2), "dd30_ms": round(d * 1000, 2), "ratio": round(d / b, 3)}
    start = time.perf_counter()
    for _ in range(200):
        for a, b2 in NEAR:
            same_values(a, b2)
    out["same_values_us"] = round((time.perf_counter() - start) / (200 * len(NEAR)) * 1e6, 1)
    return out


PROBE = [
    ("The deploy day is Tuesday", "The deploy day is Thursday"),
    ("The deploy day is Tuesday", "The deploy day is not Tuesday"),
    ("燃えるゴミの日は毎週火曜日です", "燃えるゴミの日は毎週木曜日です"),
    ("塾の迎えは午後3時", "塾の迎えは午後５時"),
    ("夫は毎朝コーヒーを飲む", "夫は毎朝コーヒーを飲まない"),
    ("息子の誕生日は3月14日", "息子の誕生日は5月14日"),
    ("夕食は毎日7時", "夕食は毎日8時"),
    ("夫は毎朝6時に起きる", "夫は毎朝7時に起きる"),
    ("Garbage day is Monday", "Garbage day is Monday morning"),
    ("The deploy day is Tuesday", "The deploy day is on Tuesday"),
    ("My wife loves green tea", "My wife really likes green tea"),
    ("I have two cats", "I have 2 cats"),
    ("妻は紅茶が好き", "妻は紅茶が大好き"),
    ("ゴミの日は火曜です", "ゴミの日は火曜"),
    ("The wifi password is on the fridge", "The wifi password is written on the fridge"),
    ("会議は３時から", "会議は3時から始まる"),
    ("The car needs new tyres", "The car needs new tires"),
]


def probe() -> None:
    model = load_embedder("use")
    for a, b in PROBE:
        vectors = model.embed_documents([a, b])
        cosine = float(vectors[0] @ vectors[1])
        near = cosine >= model.dedupe_threshold
        print(
            f"{cosine:.3f}  before: {'merged' if near else 'stored'}  now: "
            f"{'merged' if near and same_values(a, b) else 'stored'}  {a} / {b}"
        )


if __name__ == "__main__":
    if sys.argv[1] == "--probe":
        probe()
        sys.exit()
    data = Path(sys.argv[1])
    report = {
        "load": os.getloadavg(),
        "locomo": locomo(data),
        "extraction": extraction(data),
        "cost": cost(),
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))
