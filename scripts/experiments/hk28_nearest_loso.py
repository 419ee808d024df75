"""The nearest-prompt veto under leave-one-set-out, nested: for the left-out set S, each training
prompt (of set o) is vetoed by its nearest prompts in the sets other than o and S, the veto's k and
the fused thresholds are chosen on the three training sets (most right at noise <= 0.05), and S is
scored with its prompts vetoed by the three training sets' prompts.

``hk28_nearest_loso.py NULL.pkl DUMP.pkl PVEC.pkl [use|e5]``"""

from __future__ import annotations

import pickle
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hk28_hook_null_rules import GRID, absolute, fused_family, load, score


def vetoes(left, bank, vecs, idx, k) -> set[str]:
    a = np.vstack([vecs[p.text][idx] for p in left])
    b = np.vstack([vecs[p.text][idx] for p in bank])
    need = np.array([bool(p.expect) for p in bank])
    sims = a @ b.T
    out = set()
    for i, p in enumerate(left):
        near = np.argsort(-sims[i])[:k]
        if need[near].sum() * 2 < k:
            out.add(p.text)
    return out


def main(null_path, dump_path, pvec_path, model="use", fixed_thresholds=False):
    sets = load(null_path, dump_path)
    vecs = pickle.load(open(pvec_path, "rb"))
    idx = 0 if model == "use" else 1
    for name, left in sets.items():
        train_names = [o for o in sets if o != name]
        best = None
        for k in (1, 3, 5):
            veto = set()
            for o in train_names:
                bank = [p for n in train_names if n != o for p in sets[n]]
                veto |= vetoes(sets[o], bank, vecs, idx, k)
            train = [p for o in train_names for p in sets[o]]
            grid = [(0.8, 0.55)] if fixed_thresholds else [(m, w) for m in GRID for w in GRID if w <= m]
            for m, w in grid:
                g = fused_family(absolute)("", m, w)
                r, n = score(train, lambda p, g=g, v=veto: [] if p.text in v else g(p))
                if n > 0.05 and not fixed_thresholds:
                    continue
                key = (r, -n, -k, m, w)
                if best is None or key > best[0]:
                    best = (key, (k, m, w))
        k, m, w = best[1]
        bank = [p for o in train_names for p in sets[o]]
        veto = vetoes(left, bank, vecs, idx, k)
        g = fused_family(absolute)("", m, w)
        print(name, f"k={k} thresholds {m}/{w}:", score(left, lambda p: [] if p.text in veto else g(p)))


if __name__ == "__main__":
    main(*sys.argv[1:4], *(sys.argv[4:5] or ["use"]))
    print("shipped thresholds kept:")
    main(*sys.argv[1:4], *(sys.argv[4:5] or ["use"]), fixed_thresholds=True)
