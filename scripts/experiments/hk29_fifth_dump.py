"""Pickle a projects set (default: the fifth, ``hook_relevance_fifth.json``) ranked as the hook server ranks
it (``bench.hook_relevance.projects_cases``): ``hk29_fifth_dump.py OUT.pkl [SET.json]``."""

from __future__ import annotations

import pickle
import sys
import time

from shitsuji.bench.hook_relevance import FIFTH, projects_cases


def main(out: str, name: str = FIFTH) -> None:
    start = time.monotonic()
    cases = projects_cases("use", name)
    with open(out, "wb") as f:
        pickle.dump(cases, f)
    print(f"{len(cases)} cases in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main(*sys.argv[1:])
