"""One ranking knob at a time over the kept lists of ``e5ja_lists.py`` (rank-only, no re-embedding; issue 23, e5ja).

    .venv/bin/python scripts/experiments/e5ja_sweep.py EMBEDDER [--cache DIR ...]

Per variant, hit@3 (hit@1) on every set whose lists are kept, and the sum over the read sets (fresh, held,
recall, dev, mixed) and over the held-out ones (unread, blind) apart.
"""

from __future__ import annotations

import pickle
import sys
from dataclasses import replace
from pathlib import Path

from e5ja_lists import show, summary

READ = ["fresh", "held", "recall", "mixed", "dev"]
HELD_OUT = ["unread", "blind"]
VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("as shipped", {}),
    *[(f"vector_weight_cjk {v}", {"vector_weight_cjk": v}) for v in (0.75, 1.0, 1.5, 2.0, 3.0)],
    ("close_match 0.03", {"close_match": 0.03}),
    ("standout off", {"standout": False}),
    ("cross_script off", {"cross_script": False}),
    ("keyword_coverage off", {"keyword_coverage": False}),
]


def main() -> None:
    name = sys.argv[1]
    caches = [Path(sys.argv[i + 1]) for i, a in enumerate(sys.argv) if a == "--cache"] or [
        Path("/tmp/e5ja/lc")
    ]
    data = {}
    for s in READ + HELD_OUT:
        for c in caches:
            p = c / f"{name}-{s}-{0 if s == 'dev' else 200}.pkl"
            if p.exists():
                data[s] = pickle.loads(p.read_bytes())
                break
    print("sets:", ", ".join(data))
    for label, change in VARIANTS:
        cells, read, held = [], [0, 0], [0, 0]
        for s, d in data.items():
            rows = show(d, replace(d["weights"], **change))
            sm = summary(rows)
            hits = sum(r["rank"] is not None and r["rank"] < 3 for r in rows)
            cells.append(f"{s} {hits}/{len(rows)} ({sum(r['rank'] == 0 for r in rows)})")
            acc = held if s in HELD_OUT else read
            acc[0] += hits
            acc[1] += len(rows)
            assert sm["leaks"] == 0
        print(f"{label:24} read {read[0]}/{read[1]}  held-out {held[0]}/{held[1]}  | " + "; ".join(cells))


if __name__ == "__main__":
    main()
