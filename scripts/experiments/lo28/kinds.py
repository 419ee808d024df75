"""Issue 23 (lo28): The LoCoMo dev evidence turns outside the first 10, by kind (short reply, photo caption, words only in the
previous turn, list question, inference question, ...).

Inputs as docs/benchmarks.md's lo28 section says (recall_folds' lists in /tmp/lo27/words, store copies in /tmp/lo28).
"""

import pickle, sys, re
from collections import Counter, defaultdict

sys.path.insert(0, "/work/wt-lo27/scripts")
import recall_folds as rf
from shitsuji.bench import locomo as lc
from shitsuji.memory._text import terms

data = pickle.loads(open("/tmp/lo27/words/locomo.pkl", "rb").read())
texts = {}
order = {}
for s in lc.load(rf.Path("/work/shared/data/locomo/locomo-dev.json")):
    T = lc.turns(s)
    for n, t in enumerate(T):
        texts[(s["sample_id"], t["dia_id"])] = (t, T, n)
SHORT = 12
tab = Counter()
ex = defaultdict(list)
for c in data:
    hits = rf.rank(c, rf.BASE, 10)
    found = {d for h in hits for d in c["dia"][h.memory.id]}
    for e in c["evidence"]:
        if e in found:
            continue
        t, T, n = texts[(c["fold"], e)]
        body = t["text"]
        cap = None
        m = re.search(r"\[shared a photo: (.*)\]$", body)
        if m:
            cap = m.group(1)
            body = body[: m.start()].strip()
        q = set(terms(c["text"])) - {x for sp in {tt["speaker"] for tt in T} for x in terms(sp)}
        kinds = []
        if len(body.split()) < SHORT:
            kinds.append("short turn (<12 words)")
        if cap is not None:
            kinds.append("has photo caption")
            if q & set(terms(cap)) and not q & set(terms(body)):
                kinds.append("question's words only in caption")
        if not q & set(terms(body + " " + (cap or ""))):
            kinds.append("no shared word")
        prev = T[n - 1] if n and T[n - 1]["session"] == t["session"] else None
        if prev and q & set(terms(prev["text"])) and not q & set(terms(t["text"])):
            kinds.append("words only in previous turn")
        if len(c["evidence"]) >= 3:
            kinds.append("list question (>=3 evidence)")
        if (
            re.match(r"(would|might|is it likely|what might|what would)", c["text"], re.I)
            or " likely " in c["text"]
        ):
            kinds.append("inference (would/likely)")
        if re.match(r"(when|how long)", c["text"], re.I):
            kinds.append("asks when")
        names = {
            w for w in re.findall(r"\b[A-Z][a-z]+\b", body) if w not in {tt["speaker"].split()[0] for tt in T}
        } - {
            "I",
            "Hey",
            "Wow",
            "Thanks",
            "Yeah",
            "Yes",
            "The",
            "That",
            "It",
            "This",
            "Oh",
            "So",
            "Hi",
            "Aww",
            "Awesome",
            "Glad",
            "Congrats",
            "My",
            "We",
            "Sounds",
        }
        qnames = set(re.findall(r"(?<!^)\b[A-Z][a-z]+\b", c["text"]))
        if names & qnames:
            kinds.append("shares a proper noun (not a speaker)")
        tab["ALL"] += 1
        for k in kinds:
            tab[k] += 1
            ex[k].append(f"{c['text'][:60]} -> {t['text'][:80]}")
for k, v in tab.most_common():
    print(f"{v:4d} {k}")
for k in ("short turn (<12 words)", "words only in previous turn", "question's words only in caption"):
    print("--", k)
    print("\n".join(ex[k][:6]))
