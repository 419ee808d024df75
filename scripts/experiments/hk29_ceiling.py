"""Each labelled set's ceiling: the best one-score and two-score gates tuned on the set itself (most right at
noise <= 0.05), for several scores, and the fused score's ceiling per second-model weight.
``hk29_ceiling.py DUMP14.pkl`` (sets 1-4)."""

import pickle
import statistics as st
import sys
from pathlib import Path

d = pickle.loads(Path(sys.argv[1]).read_bytes())


def feats(c):
    f = sorted(
        [(h.centred + 2 * h.second, h.label, h.centred, h.second) for h in c.hits if h.centred is not None],
        reverse=True,
    )
    s = [x[0] for x in f]
    out = {}
    for i, (v, lab, u, e) in enumerate(f[:5]):
        o = s[:i] + s[i + 1 :]
        out[lab] = {
            "fused": v,
            "rel": v - st.mean(o),
            "margin": v - max(o),
            "z": (v - st.mean(o)) / st.pstdev(o),
            "minpart": min(u / 0.33, e / 0.35),
            "rank": i,
            "use": u,
            "e5": e,
            "relnote": v
            - st.mean([x[0] for j, x in enumerate(f) if j != i and not x[1].startswith("distractor")] or [0]),
        }
    return out


def best(cases, key, top1):
    rows = []
    for c in cases:
        if c.chatter >= 0.5:
            fs = {}
        else:
            fs = feats(c)
        if top1:
            fs = {k: v for k, v in fs.items() if v["rank"] == 0}
        rows.append((c, fs))
    vals = sorted({v[key] for _, fs in rows for v in fs.values()})
    bestr = (0, 0, None)
    need = [r for r in rows if r[0].expect]
    none = [r for r in rows if not r[0].expect]
    for t in vals:
        n = sum(any(v[key] >= t for v in fs.values()) for _, fs in none) / len(none)
        if n > 0.05:
            continue
        r = sum(any(v[key] >= t and k in c.expect for k, v in fs.items()) for c, fs in need) / len(need)
        if r > bestr[0]:
            bestr = (round(r, 3), round(n, 3), round(t, 3))
    return bestr


for key in ["fused", "rel", "margin", "z", "minpart", "relnote"]:
    for top1 in (False, True):
        print(f"{key:8} top1={top1!s:5}", {n[:5]: best(cs, key, top1) for n, cs in d.sets.items()})

pairs = [
    ("fused", "rel"),
    ("fused", "margin"),
    ("rel", "margin"),
    ("fused", "z"),
    ("use", "e5"),
    ("fused", "minpart"),
]
for name, cases in d.sets.items():
    rows = [(c, {} if c.chatter >= 0.5 else feats(c)) for c in cases]
    need = [r for r in rows if r[0].expect]
    none = [r for r in rows if not r[0].expect]
    out = []
    for a, b in pairs:
        va = sorted({v[a] for _, fs in none for v in fs.values()} | {9})
        vb = sorted({v[b] for _, fs in none for v in fs.values()} | {9})
        best = (0,)
        for ta in va[-12:]:
            for tb in vb[-12:]:
                ok = lambda v: v[a] >= ta or v[b] >= tb
                n = sum(any(ok(v) for v in fs.values()) for _, fs in none) / len(none)
                if n > 0.05:
                    continue
                r = sum(any(ok(v) and k in c.expect for k, v in fs.items()) for c, fs in need) / len(need)
                best = max(best, (round(r, 3), round(n, 3), round(ta, 2), round(tb, 2)))
        out.append(f"{a}|{b}:{best}")
    print(name[:5], " ".join(out))


def ceil(cases, w, wu=1.0):
    rows = []
    for c in cases:
        fs = (
            {}
            if c.chatter >= 0.5
            else {h.label: wu * h.centred + w * h.second for h in c.hits if h.centred is not None}
        )
        top = sorted(fs.items(), key=lambda x: -x[1])[:5]
        rows.append((c, top))
    need = [r for r in rows if r[0].expect]
    none = [r for r in rows if not r[0].expect]
    vals = sorted({v for _, t in none for _, v in t[:1]})
    best = (0, 0, 0)
    for t in vals + [99]:
        t2 = t + 1e-9
        n = sum(bool(tp and tp[0][1] >= t2) for _, tp in none) / len(none)
        if n > 0.05:
            continue
        r = sum(any(v >= t2 and k in c.expect for k, v in tp) for c, tp in need) / len(need)
        best = max(best, (round(r, 3), round(n, 3), round(t, 2)))
    return best


for w, wu in [(0, 1), (0.5, 1), (1, 1), (2, 1), (3, 1), (5, 1), (1, 0)]:
    print(f"use x{wu} + e5 x{w}", {n[:5]: ceil(cs, w, wu) for n, cs in d.sets.items()})
