"""Time the pending-row queries index_in_background runs at a server's start, on a SQLite file of N rows all embedded."""
import sys, time, statistics
from pathlib import Path
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.bench.latency import synthetic_memories

n = int(sys.argv[1]); path = Path(f"/tmp/hk27/count_{n}.db")
fresh = not path.exists()
store = open_store(path)
engine = MemoryEngine(store, HashEmbedder())
if fresh:
    engine.add_many(NewMemory(content=t, scope="fs/p") for t in synthetic_memories(n, seed=1))
    store.database.execute("UPDATE memories SET embedding_model = 'use-multilingual-v3'")
model = "use-multilingual-v3"
for name, f in [("embedded_otherwise", lambda: store.embedded_otherwise(model)),
                ("count_unindexed", lambda: store.count_unindexed(model)),
                ("unindexed(limit)", lambda: store.unindexed(model, 256)),
                ]:
    ts = []
    for _ in range(7):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    print(f"{name}: median {statistics.median(ts)*1000:.1f} ms")
print(store.database.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model != ?) AND deleted_at IS NULL", (model,)).fetchall())
q = "SELECT count(*) FROM memories WHERE (embedding_model IS NULL OR embedding_model < ? OR embedding_model > ?) AND deleted_at IS NULL"
print(store.database.execute("EXPLAIN QUERY PLAN " + q, (model, model)).fetchall())
ts = []
for _ in range(7):
    t = time.perf_counter(); store.database.execute(q, (model, model)); ts.append(time.perf_counter() - t)
print(f"ranges count: median {statistics.median(ts)*1000:.2f} ms")
q2 = "SELECT rowid, id, content, context, search_keys FROM memories WHERE rowid > ? AND deleted_at IS NULL AND (embedding_model IS NULL OR embedding_model < ? OR embedding_model > ?) ORDER BY rowid LIMIT ?"
print(store.database.execute("EXPLAIN QUERY PLAN " + q2, (0, model, model, 256)).fetchall())
ts = []
for _ in range(7):
    t = time.perf_counter(); store.database.execute(q2, (0, model, model, 256)); ts.append(time.perf_counter() - t)
print(f"ranges unindexed: median {statistics.median(ts)*1000:.2f} ms")
