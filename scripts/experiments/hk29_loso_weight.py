"""The bench's leave-one-set-out (sets 1-4) with the second model's weight fixed at W:
``hk29_loso_weight.py DUMP14.pkl W``."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

from shitsuji.bench.hook_relevance import leave_one_set_out


def main(dump: str, weight: str) -> None:
    sets = pickle.loads(Path(dump).read_bytes()).sets
    sets = {k: v for k, v in sets.items() if k != "fifth_set"}
    out = leave_one_set_out(sets, [float(weight)])
    for name, fold in out.items():
        s = fold["scored"]
        print(weight, name, json.dumps(fold["tuned"]), s["right"], s["noise"])


if __name__ == "__main__":
    main(*sys.argv[1:])
