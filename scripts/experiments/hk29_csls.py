"""Hubness correction (CSLS-like) of the fused score, judged leave-one-set-out over sets 1-4: a note's
score minus its mean top-k fused score over a bank of *unlabelled* prompts of the other sets (a note that
every prompt comes near — "errors are JSON", "DAGs start at 02:00" — needs more to be shown).
``hk29_csls.py DUMP14.pkl NULL.pkl`` (NULL: ``hk28_hook_null_dump.py``'s table)."""

from __future__ import annotations

import pickle
import statistics as st
import sys
from pathlib import Path

from shitsuji.bench.hook_relevance import FRESH, HELD_OUT, PROJECT, PROJECTS, load_set

SETS = {"first_set": "hook_relevance.json", "held_out_set": HELD_OUT, "fresh_set": FRESH, "projects_set": PROJECTS}


def main(dump: str, null: str, k: int = 10, mode: str = "m") -> None:
    sets = pickle.loads(Path(dump).read_bytes()).sets
    table = pickle.loads(Path(null).read_bytes())
    prompts = {name: load_set(f)["prompts"] for name, f in SETS.items()}
    scopes = load_set(PROJECTS)["projects"]
    scope_of = {}
    for name, ps in prompts.items():
        for p in ps:
            scope_of[(name, p["prompt"])] = ("projects", scopes[p["project"]]) if name == "projects_set" else ("acme", PROJECT)
    # consistency with the bench's dump
    diffs = []
    for name, cases in sets.items():
        for c in cases:
            eng, sc = scope_of[(name, c.prompt)]
            row = table[eng][sc][c.prompt]
            diffs += [abs(row[h.label][1] - h.centred) + abs(row[h.label][2] - h.second) for h in c.hits if h.centred is not None]
    print("max |table - dump|", max(diffs))
    cache: dict = {}

    def hub(eng: str, sc: str, label: str, bank: frozenset[str]) -> float:
        key = (eng, sc, label, bank)
        if key not in cache:
            vals = sorted(
                (v[label][1] + 2 * v[label][2] for name in bank for p in prompts[name] if label in (v := table[eng][sc][p["prompt"]])),
                reverse=True,
            )
            cache[key] = st.mean(vals[:k]) if vals else 0.0
        return cache[key]

    def shown(name: str, c, t: float, bank: frozenset[str]) -> list[str]:
        if c.chatter >= 0.5:
            return []
        eng, sc = scope_of[(name, c.prompt)]
        out = []
        for h in c.hits:
            if h.centred is None:
                continue
            f = h.centred + 2 * h.second
            s = f - hub(eng, sc, h.label, bank) if mode == "m" else 2 * f - hub(eng, sc, h.label, bank)
            out.append((s, h.label))
        out.sort(reverse=True)
        return [lab for s, lab in out if s >= t][:5]

    def score(name: str, cases, t: float, bank: frozenset[str]) -> tuple[float, float]:
        need = [c for c in cases if c.expect]
        none = [c for c in cases if not c.expect]
        r = sum(bool(set(shown(name, c, t, bank)) & c.expect) for c in need) / len(need)
        n = sum(bool(shown(name, c, t, bank)) for c in none) / len(none)
        return round(r, 3), round(n, 3)

    names = list(SETS)
    grid = [round(-0.5 + 0.025 * i, 3) for i in range(81)]
    row = []
    for left in names:
        train = [n for n in names if n != left]
        best = (-1.0, 0.0, grid[-1])
        for t in grid:
            per = [score(n, sets[n], t, frozenset(x for x in train if x != n)) for n in train]
            need = sum(sum(1 for c in sets[n] if c.expect) for n in train)
            none = sum(sum(1 for c in sets[n] if not c.expect) for n in train)
            r = sum(p[0] * sum(1 for c in sets[n] if c.expect) for p, n in zip(per, train)) / need
            nz = sum(p[1] * sum(1 for c in sets[n] if not c.expect) for p, n in zip(per, train)) / none
            if nz <= 0.05 and (r, -nz, t) > best:
                best = (r, -nz, t)
        t = best[2]
        row.append(f"{left[:5]} t={t}: {score(left, sets[left], t, frozenset(train))}")
    print(f"k={k} mode={mode}", " | ".join(row))
    # in-sample ceiling per set (bank: the three others)
    print("ceiling", {n[:5]: max(((r, -nz, t) for t in grid for r, nz in [score(n, sets[n], t, frozenset(x for x in names if x != n))] if nz <= 0.05), default=None) for n in names})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(a) if a.isdigit() else a for a in sys.argv[3:]))
