"""Calibrate an embedder's ``close_cosine`` (issue 23, ky23): the cosine at which recall takes two hits
for versions of one fact (``_recall.prefer_newer``).

The rule, the same for every embedder: the lowest threshold at which this embedder merges no larger a
share of *unrelated* pairs than ``use`` does at its 0.6 (the value recall was tuned with) — so a model
that packs every text close together (e5: unrelated facts at 0.8-0.98) gets a threshold that means as
much. Unrelated pairs: every pair of one member's dev facts not labelled below, and each fact against
that member's 200 synthetic distractors (what ``bench japanese --distractors 200`` puts beside it).
Versions (the same subject with a new value, labelled by hand from the facts) are reported beside it:
how many each threshold still takes for versions. ja-held is not read (held out).

    .venv/bin/python scripts/calibrate_close_cosine.py use e5
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import numpy as np

from shitsuji.bench.japanese import _jsonl
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import load_embedder

SETS = [Path("src/shitsuji/bench/data/ja-fresh"), Path("src/shitsuji/bench/data/ja-recall")]
VERSIONS = [  # (set, older id, newer id): one member's fact restated with a new value
    ("ja-fresh", "m09", "m10"),  # commute by bicycle -> by train
    ("ja-recall", "h01", "h02"),  # a beer every night -> a glass of wine at weekends
    ("ja-recall", "h05", "h06"),  # the office in Shinjuku -> mostly working from home
    ("ja-recall", "b03", "b04"),  # a Prius -> a Fit
]
EXTRA_VERSIONS = [  # tests/test_newer_facts.py's pairs of one subject
    ("夫の好きな飲み物はコーヒー", "夫の好きな飲み物は紅茶"),
    ("アキの自宅の最寄り駅は三鷹", "アキの自宅の最寄り駅は吉祥寺"),
    ("The deploy day is Tuesday", "The deploy day is Thursday"),
]
USE_CLOSE_COSINE = 0.6


def pairs() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    versions = list(EXTRA_VERSIONS)
    unrelated: list[tuple[str, str]] = []
    labelled = {(s, a, b) for s, a, b in VERSIONS}
    for directory in SETS:
        facts = _jsonl(directory / "facts-dev.jsonl", {"id": str, "user": str, "content": str})
        by_user: dict[str, list[dict[str, str]]] = {}
        for fact in facts:
            by_user.setdefault("shared" if fact.get("shared") else fact["user"], []).append(fact)
        for user, own in by_user.items():
            for a, b in combinations(own, 2):
                if (directory.name, a["id"], b["id"]) in labelled:
                    versions.append((a["content"], b["content"]))
                else:
                    unrelated.append((a["content"], b["content"]))
            noise = list(synthetic_memories(200, seed=len(user)))
            unrelated += [(f["content"], n) for f in own for n in noise]
    return versions, unrelated


def cosines(name: str, texts: list[tuple[str, str]]) -> np.ndarray:
    embedder = load_embedder(name)
    flat = sorted({t for pair in texts for t in pair})
    vectors = dict(zip(flat, embedder.embed_documents(flat), strict=True))
    return np.array([float(vectors[a] @ vectors[b]) for a, b in texts])


def main(names: list[str]) -> None:
    versions, unrelated = pairs()
    base = cosines("use", unrelated)
    share = float(np.mean(base >= USE_CLOSE_COSINE))
    print(
        f"{len(versions)} version pairs, {len(unrelated)} unrelated; use merges {share:.4f} of unrelated at 0.6"
    )
    for name in names:
        far, near = cosines(name, unrelated), cosines(name, versions)
        # the lowest threshold (to 0.01) whose share of unrelated pairs at or above it is no more than use's
        threshold = next(t / 100 for t in range(0, 101) if np.mean(far >= t / 100) <= share)
        print(
            f"{name}: unrelated p50/p95/p99/max {np.percentile(far, 50):.3f}/{np.percentile(far, 95):.3f}/"
            f"{np.percentile(far, 99):.3f}/{far.max():.3f}; versions min/median {near.min():.3f}/"
            f"{np.median(near):.3f}; close_cosine {threshold:.2f} (unrelated merged {np.mean(far >= threshold):.4f}, "
            f"versions kept {int(np.sum(near >= threshold))}/{len(near)})"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["use", "e5"])
