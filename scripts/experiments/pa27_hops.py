import json, sys, collections
for f in sys.argv[1:]:
    h = json.load(open(f))
    h = [x for x in h if x[4] in ("signed_begun", "ChatService._save")]
    if not h: continue
    # the busy window: middle 80% of the hops by time
    h.sort(key=lambda x: x[1]); n = len(h); h = h[n // 10: n - n // 10]
    t0, t1 = h[0][1], h[-1][2]; win = t1 - t0
    wall = sum(x[2] - x[1] for x in h); cpu = sum(x[3] for x in h); q = sum(x[1] - x[0] for x in h)
    by = collections.defaultdict(list)
    for x in h: by[x[4]].append(x)
    turns = len(by["signed_begun"])
    print(f"{f}: window {win:.2f}s turns {turns} ({turns/win:.0f}/s): worker busy {wall/win:.2f} threads, worker cpu/wall {cpu/wall:.2f}, queue wait per hop {q/len(h)*1000:.2f} ms",
          {k: f"wall {sum(x[2]-x[1] for x in v)/len(v)*1000:.2f} cpu {sum(x[3] for x in v)/len(v)*1000:.2f} ms" for k, v in by.items() if v})
