"""Pickle every labelled hook set ranked as the hook server ranks it (``bench.hook_relevance.labelled_sets``),
so gate rules can be tried offline: ``hk28_hook_dump.py OUT.pkl``."""

from __future__ import annotations

import pickle
import sys
import time

from shitsuji.bench.hook_relevance import labelled_sets


def main(out: str) -> None:
    start = time.monotonic()
    labelled = labelled_sets("use", progress=lambda m: print(m, file=sys.stderr))
    with open(out, "wb") as f:
        pickle.dump(labelled, f)
    print(f"{ {k: len(v) for k, v in labelled.sets.items()} } in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
