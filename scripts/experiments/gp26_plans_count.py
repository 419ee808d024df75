"""8 sessions x 20 web turns in threads (as bench scale's chat), then every pooled connection's prepared
statements: how many plans the server made for the prepared executions (custom + generic), per turn."""
import sys, json, threading, psycopg
sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", ".."))
from fastapi.testclient import TestClient
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.store import _database as D
from tests.web_support import HOME, PASSWORD, make_site
host, dbname, sessions, turns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
admin = psycopg.connect(f"postgresql://postgres@/postgres?host={host}", autocommit=True)
admin.execute(f"DROP DATABASE IF EXISTS {dbname}"); admin.execute(f"CREATE DATABASE {dbname}")
url = f"postgresql://postgres@/{dbname}?host={host}"
site = make_site(url, ScriptedModel(lambda r: text_response("かしこまりました")))
from shitsuji.household import HouseholdStore
from shitsuji.store import database
hs = HouseholdStore(database(url))
for k in range(sessions):
    hs.create(f"h{k}", [f"u{k}"]); site.backend.accounts.set_password(f"h{k}", f"u{k}", PASSWORD)
def chat(k):
    c = TestClient(site.app)
    csrf = c.post("/api/session", json={"user": f"u{k}", "password": PASSWORD, "household": f"h{k}"}).json()["csrf"]
    for i in range(turns):
        r = c.post("/api/chat", json={"message": f"牛乳を買ったよ {k} {i}"}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
import os, time
def backend_cpu():
    pool = list(D._POOLS.values())[0]
    got = [pool.getconn(timeout=5) for _ in range(pool.get_stats()["pool_available"])]
    total = 0
    for conn in got:
        pid = conn.execute("SELECT pg_backend_pid()", prepare=False).fetchone()[0]
        f = open(f"/proc/{pid}/stat").read().split(")")[-1].split()
        total += int(f[11]) + int(f[12])
        pool.putconn(conn)
    return total, len(got)
cpu0, n0 = backend_cpu()
t0 = time.time()
ts = [threading.Thread(target=chat, args=(k,)) for k in range(sessions)]
[t.start() for t in ts]; [t.join() for t in ts]
wall = time.time() - t0
cpu1, n1 = backend_cpu()
pool = list(D._POOLS.values())[0]
conns = [pool.getconn(timeout=5) for _ in range(pool.get_stats()["pool_available"])]
g = c = n = 0
for conn in conns:
    rows = conn.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements", prepare=False).fetchall()
    n += len(rows); g += sum(r[0] for r in rows); c += sum(r[1] for r in rows)
total = sessions * turns
tick = os.sysconf("SC_CLK_TCK")
print(json.dumps({"server_cpu_ms_per_turn": round((cpu1 - cpu0) / tick * 1000 / (sessions * turns), 2), "conns_before": n0, "wall_s": round(wall, 1), "load": open("/proc/loadavg").read().split()[:3], "connections": len(conns), "prepared": n, "generic_executions": g, "custom_plans": c,
                  "custom_plans_per_turn": round(c / total, 2), "unprepared_runs_per_turn": round(5 * n / total, 2)}))
