"""Offline on the dump: both models must agree — the shipped fused gate, plus a floor on the first
model's own cosine (raw or language-centred) for a candidate to be shown. Leave-one-set-out."""
import pickle
from shitsuji.bench.hook_relevance import FRESH, HELD_OUT
d = pickle.load(open("/tmp/hk27/dump.pkl", "rb"))
SETS = ("hook_relevance.json", HELD_OUT, FRESH)
def fused(c): return None if c["centred"] is None or c["second"] is None else c["centred"] + 2.0 * c["second"]
def shown(row, key, floor):
    if row["chatter"] >= 0.5: return []
    out = []
    for c in row["cands"]:
        f = fused(c)
        if f is None or not (f >= 0.8 or (f >= 0.55 and c["shared"] >= 2)): continue
        if (c[key] or 0) < floor: continue
        out.append((f, c["label"]))
    return [l for f, l in sorted(out, reverse=True)][:5]
def score(name, key, floor):
    need = [r for r in d[name] if r["expect"]]; none = [r for r in d[name] if not r["expect"]]
    return (sum(bool(set(shown(r, key, floor)) & r["expect"]) for r in need) / len(need),
            sum(bool(shown(r, key, floor)) for r in none) / len(none), len(need), len(none))
for key in ("cosine", "centred"):
    grid = [x / 100 for x in range(-10, 41, 2)]
    print(key)
    for fl in grid:
        print(f"  floor {fl:+.2f}: " + "  ".join(f"{a:.3f}/{b:.3f}" for a, b, *_ in (score(n, key, fl) for n in SETS)))
    for out in SETS:  # choose on the two others: most right at pooled noise <= 0.05, else least noise then most right
        train = [n for n in SETS if n != out]
        def pooled(fl):
            rs = [score(n, key, fl) for n in train]
            right = sum(r * n for r, _, n, _ in rs) / sum(n for *_, n, _ in rs)
            noise = sum(z * m for _, z, _, m in rs) / sum(m for *_, m in rs)
            return right, noise
        ok = [fl for fl in grid if pooled(fl)[1] <= 0.05]
        best = max(ok, key=lambda fl: pooled(fl)[0]) if ok else min(grid, key=lambda fl: (pooled(fl)[1], -pooled(fl)[0]))
        r, z, *_ = score(out, key, best)
        print(f"  leave {out} out: floor {best:+.2f} (train {pooled(best)[0]:.3f}/{pooled(best)[1]:.3f}) -> {r:.3f}/{z:.3f}")
