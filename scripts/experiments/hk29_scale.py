"""Why the right note scores low on the fourth set: per set, medians of each score component for the
expected note (need prompts) and for the best candidate of prompts that need nothing.
``hk29_scale.py DUMP14.pkl`` (aggregates only; the fifth set is not read here)."""

from __future__ import annotations

import pickle
import statistics as st
import sys
from pathlib import Path

from shitsuji.bench.hook_relevance import Case


def parts(case: Case, label: str | None) -> dict[str, float] | None:
    hits = [h for h in case.hits if h.centred is not None]
    fused = [(h.centred or 0) + 2 * (h.second or 0) for h in hits]
    order = sorted(range(len(hits)), key=lambda i: -fused[i])
    if not order:
        return None
    i = order[0] if label is None else next((j for j in order if hits[j].label == label), None)
    if i is None:
        return None
    others = [f for j, f in enumerate(fused) if j != i]
    second = max(others) if others else 0.0
    sd = st.pstdev(others) or 1e-9
    return {
        "rank": order.index(i) + 1,
        "use_raw": hits[i].cosine or 0,
        "use_c": hits[i].centred or 0,
        "e5_c": hits[i].second or 0,
        "fused": fused[i],
        "rel": fused[i] - st.mean(others),
        "margin2": fused[i] - second,
        "z": (fused[i] - st.mean(others)) / sd,
        "mean_others": st.mean(others),
        "sd_others": sd,
        "n_note": sum(not h.label.startswith("distractor") for h in hits),
    }


def main(path: str) -> None:
    labelled = pickle.loads(Path(path).read_bytes())
    for name, cases in labelled.sets.items():
        need = [p for c in cases if c.expect for p in [parts(c, sorted(c.expect)[0])] if p]
        none = [p for c in cases if not c.expect for p in [parts(c, None)] if p]
        for kind, rows in (("need", need), ("none-top", none)):
            keys = rows[0].keys()
            print(
                f"{name:13} {kind:8} n={len(rows):3} "
                + " ".join(f"{k}={st.median(r[k] for r in rows):.3f}" for k in keys)
            )


if __name__ == "__main__":
    main(sys.argv[1])
