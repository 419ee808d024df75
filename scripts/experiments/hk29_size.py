"""Does a note's fused score depend on how many memories its project holds? The fourth set ranked with
N distractors per project instead of 300 (``hk29_size.py N OUT.pkl``); compare with the bench's dump."""

from __future__ import annotations

import pickle
import sys

from shitsuji.bench import hook_relevance


def main(n: str, out: str) -> None:
    hook_relevance.DISTRACTORS = int(n)  # read by ``add_projects`` when it runs
    cases = hook_relevance.projects_cases("use")
    with open(out, "wb") as f:
        pickle.dump(cases, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
