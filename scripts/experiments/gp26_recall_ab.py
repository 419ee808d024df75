"""phases() of scripts/bench_pg_recall_phases.py on a copy of the 200k fill, then the one pooled
connection's prepared statements (generic / custom plans) and its plan_cache_mode."""
import json, sys
sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))
import bench_pg_recall_phases as B
from shitsuji.store import database, close_pools
folder, n, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = B.phases(folder, n, first)
db = database(f"postgresql://postgres@/postgres?host={folder}")
with db._pool.connection() as conn:
    out["plan_cache_mode"] = conn.execute("SHOW plan_cache_mode", prepare=False).fetchone()[0]
    out["prepared"] = [[" ".join(s.split())[:90], g, c] for s, g, c in conn.execute(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements", prepare=False).fetchall()]
    out["recall_fn"] = conn.execute("SELECT proconfig FROM pg_proc WHERE proname = 'memory_recall_candidates'", prepare=False).fetchone()[0]
summ = out["p50_p95_max"]
print(json.dumps({k: out[k] for k in ("plan_cache_mode", "prepared", "recall_fn", "first")} | {k: summ[k] for k in ("candidates", "candidates db_cpu", "rows", "rows db_cpu", "total", "recall")}, ensure_ascii=False))
close_pools()
