"""Offline on the dump: an entity-disagreement veto — a candidate is dropped when the prompt names a
capitalised word (not its first word) the note lacks, and the note names one the prompt lacks."""
import pickle, re
from shitsuji.bench.hook_relevance import load_set, FRESH, HELD_OUT, DISTRACTORS
from shitsuji.bench.latency import synthetic_memories
d = pickle.load(open("/tmp/hk27/dump.pkl", "rb"))
notes = {m["id"]: m["content"] for m in load_set()["memories"]}
notes.update({f"distractor-{i}": t for i, t in enumerate(synthetic_memories(DISTRACTORS, seed=3))})
CAP = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]{2,}\b")
def names(text): return {w.lower() for w in CAP.findall(text)}
def fused(c): return None if c["centred"] is None or c["second"] is None else c["centred"] + 2.0 * c["second"]
def shown(row, veto):
    if row["chatter"] >= 0.5: return []
    out = []
    for c in row["cands"]:
        f = fused(c)
        if f is None or not (f >= 0.8 or (f >= 0.55 and c["shared"] >= 2)): continue
        if veto:
            p, n = names(row["prompt"]), names(notes[c["label"]])
            low_p, low_n = row["prompt"].lower(), notes[c["label"]].lower()
            if {w for w in p if w not in low_n} and {w for w in n if w not in low_p}: continue
        out.append((f, c["label"]))
    return [l for f, l in sorted(out, reverse=True)][:5]
for name in ("hook_relevance.json", HELD_OUT, FRESH):
    for veto in (False, True):
        need = [r for r in d[name] if r["expect"]]; none = [r for r in d[name] if not r["expect"]]
        right = sum(bool(set(shown(r, veto)) & r["expect"]) for r in need)
        noise = sum(bool(shown(r, veto)) for r in none)
        print(name, "veto" if veto else "shipped", f"{right/len(need):.3f} / {noise/len(none):.3f}")
        if veto:
            for r in need:
                if set(shown(r, False)) & r["expect"] and not set(shown(r, True)) & r["expect"]: print("   lost:", r["prompt"])
            for r in none:
                if shown(r, False) and not shown(r, True): print("   quieted:", r["prompt"])
