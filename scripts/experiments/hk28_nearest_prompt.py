"""The nearest labelled prompt as a veto, leave-one-set-out: a prompt whose nearest prompt among the
three other sets (cosine of the prompts' vectors) is one that needed nothing gets nothing; otherwise
the gate as shipped (0.8 / 0.55, chatter 0.5).

``hk28_nearest_prompt.py NULL.pkl DUMP.pkl PVEC.pkl``"""

from __future__ import annotations

import pickle
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hk28_hook_null_rules import Prompt, absolute, fused_family, load, score


def main(null_path: str, dump_path: str, pvec_path: str) -> None:
    sets = load(null_path, dump_path)
    vecs = pickle.load(open(pvec_path, "rb"))
    shipped = fused_family(absolute)("", 0.8, 0.55)
    print("shipped", {k: score(v, shipped) for k, v in sets.items()})
    for model, idx in (("use", 0), ("e5", 1), ("both (sum of cosines)", 2)):
        for kk in (1, 3, 5):
            vetoed: dict[str, set[str]] = {}
            for name, left in sets.items():
                bank = [p for o, ps in sets.items() if o != name for p in ps]
                def mat(ps, i):
                    return np.vstack([vecs[p.text][i] for p in ps])
                if idx < 2:
                    sims = mat(left, idx) @ mat(bank, idx).T
                else:
                    sims = mat(left, 0) @ mat(bank, 0).T + mat(left, 1) @ mat(bank, 1).T
                need = np.array([bool(p.expect) for p in bank])
                veto = set()
                for i, p in enumerate(left):
                    near = np.argsort(-sims[i])[:kk]
                    if need[near].sum() * 2 < kk or (kk == 1 and not need[near[0]]):
                        veto.add(p.text)
                vetoed[name] = veto

            def gated(p: Prompt, veto=vetoed):
                return [] if any(p.text in v for v in veto.values()) else shipped(p)

            print(f"{model}, {kk}-nearest veto + shipped:", {k: score(v, gated) for k, v in sets.items()})


if __name__ == "__main__":
    main(*sys.argv[1:4])
