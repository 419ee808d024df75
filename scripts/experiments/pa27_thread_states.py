"""Sample the app process's thread states every ~1 ms: the share of samples where no thread is runnable."""
import os, subprocess, sys, time, json, signal
out = sys.argv[1]; stop = False
def term(*_):
    global stop; stop = True
signal.signal(signal.SIGTERM, term)
res = {}
while not stop:
    r = subprocess.run(["pgrep", "-f", "python -m shitsuji.bench.scale "], capture_output=True, text=True)
    pids = [int(p) for p in r.stdout.split()]
    if not pids: time.sleep(0.05); continue
    pid = pids[0]
    n = idle = 0; prev_cpu = None
    rows = []
    while not stop:
        try:
            states = []
            for tid in os.listdir(f"/proc/{pid}/task"):
                t = open(f"/proc/{pid}/task/{tid}/stat").read(); states.append(t[t.rindex(")") + 2])
            t = open(f"/proc/{pid}/stat").read(); f = t[t.rindex(")") + 2:].split(); cpu = int(f[11]) + int(f[12])
        except OSError:
            break
        rows.append((time.monotonic(), "R" in states, cpu))
        time.sleep(0.001)
    # the chat window: between the first and last 10 ms tick where the app's CPU rose fast — use samples whose
    # CPU over the next 0.5 s rose by >= 10 ticks
    busy = [i for i in range(len(rows)) if any(rows[j][2] - rows[i][2] >= 10 and rows[j][0] - rows[i][0] <= 0.5 for j in range(i, min(len(rows), i + 600), 50))]
    if len(busy) > 10:
        w = rows[busy[0]: busy[-1]]
        res[pid] = {"window_s": w[-1][0] - w[0][0], "samples": len(w), "none_runnable": sum(1 for x in w if not x[1]) / len(w)}
json.dump(res, open(out, "w"))
