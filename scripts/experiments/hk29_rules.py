"""Gate rules on the hook server's fused scores, judged leave-one-set-out over sets 1-4 (a rule's one
threshold chosen on the three others: most right at noise <= 0.05), and rules with no threshold.
``hk29_rules.py DUMP14.pkl`` (sets 1-4 only)."""

from __future__ import annotations

import pickle
import statistics as st
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from shitsuji.bench.hook_relevance import Case

K = 5
Rule = Callable[[Case, float], list[str]]


def fused(case: Case) -> list[tuple[float, str, int]]:
    out = [
        ((h.centred or 0) + 2 * (h.second or 0), h.label, h.shared)
        for h in case.hits
        if h.centred is not None
    ]
    return sorted(out, key=lambda t: -t[0])


def chatter(case: Case) -> bool:
    return case.chatter >= 0.5


def shipped(case: Case, t: float = 0.8) -> list[str]:
    if chatter(case):
        return []
    return [lab for s, lab, sh in fused(case) if s >= t or (s >= 0.55 and sh >= 2)][:K]


def margin(case: Case, t: float) -> list[str]:
    """The top candidate when it leads the second by t."""
    f = fused(case)
    if chatter(case) or len(f) < 2:
        return []
    return [f[0][1]] if f[0][0] - f[1][0] >= t else []


def zscore(case: Case, t: float) -> list[str]:
    f = fused(case)
    if chatter(case) or len(f) < 3:
        return []
    out = []
    for i, (s, lab, _) in enumerate(f):
        others = [x[0] for j, x in enumerate(f) if j != i]
        if (s - st.mean(others)) / (st.pstdev(others) or 1e-9) >= t:
            out.append(lab)
    return out[:K]


def gap_rule(case: Case, t: float = 0.0) -> list[str]:
    """No constant: show the candidates above the largest gap in the sorted scores when that gap is wider
    than every gap below it... (the natural break)."""
    f = fused(case)
    if chatter(case) or len(f) < 3:
        return []
    s = [x[0] for x in f]
    gaps = [s[i] - s[i + 1] for i in range(len(s) - 1)]
    i = int(np.argmax(gaps))
    return [x[1] for x in f[: i + 1]][:K] if i < K else []


def with_shipped(rule: Rule) -> Rule:
    def both(case: Case, t: float) -> list[str]:
        a = shipped(case)
        return a + [x for x in rule(case, t) if x not in a]

    return both


def score(cases: Sequence[Case], rule: Rule, t: float) -> tuple[float, float]:
    need = [c for c in cases if c.expect]
    none = [c for c in cases if not c.expect]
    right = sum(bool(set(rule(c, t)[:K]) & c.expect) for c in need) / len(need)
    noise = sum(bool(rule(c, t)) for c in none) / len(none)
    return round(right, 3), round(noise, 3)


def tune(cases: Sequence[Case], rule: Rule, grid: Sequence[float]) -> float:
    best = (-1.0, 0.0, grid[-1])
    for t in grid:
        r, n = score(cases, rule, t)
        if n <= 0.05 and (r, -n, t) > best:
            best = (r, -n, t)
    return best[2]


def main(path: str) -> None:
    sets = dict(pickle.loads(Path(path).read_bytes()).sets)
    grid = [round(0.02 * i, 2) for i in range(80)]
    zgrid = [round(0.1 * i, 2) for i in range(80)]
    rules: dict[str, tuple[Rule, Sequence[float]]] = {
        "shipped abs": (shipped, [round(0.05 * i, 2) for i in range(31)]),
        "margin over 2nd": (margin, grid),
        "shipped or margin": (with_shipped(margin), grid),
        "z vs others": (zscore, zgrid),
        "shipped or z": (with_shipped(zscore), zgrid),
    }
    names = list(sets)
    for label, (rule, g) in rules.items():
        row = []
        for left in names:
            train = [c for n in names if n != left for c in sets[n]]
            t = tune(train, rule, g)
            row.append(f"{left[:5]} t={t}: {score(sets[left], rule, t)}")
        print(f"{label:20}", " | ".join(row))
    for label, rule in {"natural break": gap_rule, "shipped as is": shipped}.items():
        print(
            f"{label:20}",
            " | ".join(f"{n[:5]}: {score(sets[n], rule, 0.8 if rule is shipped else 0)}" for n in names),
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
