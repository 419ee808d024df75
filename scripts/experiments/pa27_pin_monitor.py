"""Pin app processes ('shitsuji.bench.scale ' children) to CPU 0 and sample per-CPU busy + app CPU every 0.1 s.
usage: mon.py OUT.json  (runs until killed by SIGTERM; writes on exit)"""
import json, os, signal, subprocess, sys, time
out = sys.argv[1]
TICK = os.sysconf("SC_CLK_TCK")
samples = []
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
pinned = set()
def cpus():
    d = {}
    for line in open("/proc/stat"):
        if line.startswith("cpu") and line[3].isdigit():
            f = line.split(); v = list(map(int, f[1:]))
            d[f[0]] = (sum(v), v[3] + v[4])
    return d
def apps():
    r = subprocess.run(["pgrep", "-f", "shitsuji.bench.scale "], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split()]
def pcpu(pid):
    try:
        t = open(f"/proc/{pid}/stat").read(); f = t[t.rindex(")") + 2:].split()
        return (int(f[11]) + int(f[12])) / TICK
    except OSError:
        return None
def allproc():
    d = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                for tid in os.listdir(f"/proc/{p}/task"):
                    t = open(f"/proc/{p}/task/{tid}/stat").read(); f = t[t.rindex(")") + 2:].split()
                    d[(int(p), int(tid))] = ((int(f[11]) + int(f[12])) / TICK, int(f[36]), t[t.index("(")+1:t.rindex(")")])
            except OSError:
                pass
    return d
first = allproc()
while not stop:
    ps = apps()
    me = os.getpid()
    appcpu = {}
    for p in ps:
        if p == me: continue
        try:
            cmd = open(f"/proc/{p}/cmdline").read().split("\0")
        except OSError:
            cmd = []
        if "-m" in cmd and "shitsuji.bench.scale" in cmd:  # an app process
            if p not in pinned:
                subprocess.run(["taskset", "-apc", "0", str(p)], capture_output=True); pinned.add(p)
            c = pcpu(p)
            if c is not None: appcpu[p] = c
    bench = []
    for p in ps:
        try:
            cl = open(f"/proc/{p}/cmdline").read()
        except OSError:
            continue
        if p != me and "bench" in cl and "-m" not in cl.split("\0"):
            bench.append(p)
    r = subprocess.run(["pgrep", "-f", "postgres -D /tmp/shitsuji-scale-"], capture_output=True, text=True)
    pm = [int(p) for p in r.stdout.split()]
    srv = None
    if pm and os.environ.get("PA27_SERVER_CPU") and pm[0] not in pinned:
        subprocess.run(["taskset", "-apc", os.environ["PA27_SERVER_CPU"], str(pm[0])], capture_output=True); pinned.add(pm[0])
        for k in subprocess.run(["pgrep", "-P", str(pm[0])], capture_output=True, text=True).stdout.split():
            subprocess.run(["taskset", "-apc", os.environ["PA27_SERVER_CPU"], k], capture_output=True)
    if pm:
        kids = subprocess.run(["pgrep", "-P", str(pm[0])], capture_output=True, text=True).stdout.split()
        try:
            t = open(f"/proc/{pm[0]}/stat").read(); f = t[t.rindex(")") + 2:].split()
            srv = (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / TICK + sum(pcpu(int(k)) or 0 for k in kids)
        except OSError:
            pass
    samples.append({"t": time.monotonic(), "cpu": cpus(), "app": appcpu, "bench": sum(pcpu(p) or 0 for p in bench) if bench else None, "srv": srv})
    time.sleep(0.1)
last = allproc()
procs = []
for k, v in last.items():
    d = v[0] - first.get(k, (0,))[0]
    if d > 0.05:
        try: aff = [l for l in open(f"/proc/{k[0]}/task/{k[1]}/status") if l.startswith("Cpus_allowed_list")][0].split()[1]
        except OSError: aff = "?"
        try: cmd = open(f"/proc/{k[0]}/cmdline").read().replace("\0", " ")[:100]
        except OSError: cmd = "?"
        procs.append((d, k[0], k[1], v[2], aff, v[1], cmd))
procs.sort(reverse=True)
json.dump({"samples": samples, "procs": procs[:40]}, open(out, "w"))
