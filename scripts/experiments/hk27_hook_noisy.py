"""The fresh set's prompts that need nothing, one by one: what passes the shipped fused gate and on which note
(argument: anything = the held-out set instead). Reads the dump of hk26_hook_dump.py at /tmp/hk27/dump.pkl."""
import pickle, json, sys
from shitsuji.bench.hook_relevance import load_set, FRESH, HELD_OUT
d = pickle.load(open(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1].endswith(".pkl") else "/tmp/hk27/dump.pkl", "rb"))
notes = {m["id"]: m["content"] for m in load_set()["memories"]}
def fused(c): return None if c["centred"] is None or c["second"] is None else c["centred"] + 2.0 * c["second"]
def passed(row):
    if row["chatter"] >= 0.5: return []
    out = []
    for c in row["cands"]:
        f = fused(c)
        if f is None: continue
        if f >= 0.8 or (f >= 0.55 and c["shared"] >= 2): out.append((round(f, 3), c["label"], c["shared"], round(c["cosine"] or 0, 3), round(c["second"], 3)))
    return sorted(out, reverse=True)
import sys
for name in ((HELD_OUT,) if sys.argv[1:] else (FRESH,)):
    for row in d[name]:
        if row["expect"]: continue
        p = passed(row)
        top = sorted(((fused(c) or -9, c["label"]) for c in row["cands"]), reverse=True)[:3]
        print(("NOISE " if p else "quiet ") + repr(row["prompt"]), "chatter", round(row["chatter"], 3))
        for f, lab, sh, cos, sec in p[:3]:
            print(f"   pass fused {f} shared {sh} use {cos} e5c {sec} :: {lab}: {notes.get(lab, lab)[:110]}")
        if not p: print("   top:", [(round(a,3), b) for a,b in top])
