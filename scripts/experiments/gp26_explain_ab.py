"""Recall's wire statements and the supersede searches on the 200k fill: EXPLAIN (ANALYZE, BUFFERS) of
each prepared statement planned custom (the call's values) and generic, same values; plan shapes and ms."""
import json, random, sys
import numpy as np, psycopg
from pgvector.psycopg import register_vector
from shitsuji.memory._pg_rows import rows_from_table_sql
from shitsuji.memory._postgres_store import exact_sql, KEYWORD_SQL, K1, B
from shitsuji.store._database import to_postgres
folder, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conn = psycopg.connect(f"postgresql://postgres@/postgres?host={folder}", autocommit=True)
register_vector(conn)
scopes = [r[0] for r in conn.execute("SELECT DISTINCT scope FROM memories WHERE scope LIKE 'bench/s%'").fetchall()]
rng = random.Random(25); scopes.sort(); rng.shuffle(scopes)
q = np.random.default_rng(1).standard_normal(512).astype(np.float32); q /= np.linalg.norm(q)
def shape(p):
    out = [p["Node Type"] + (":" + p.get("Index Name", p.get("Relation Name", "")) if ("Index Name" in p or "Relation Name" in p) else "")]
    for c in p.get("Plans", []): out += shape(c)
    return out
res = {}
for scope in scopes[first:first + count]:
    chain = [scope, "bench"]
    words = conn.execute("SELECT content FROM memories WHERE scope = %s LIMIT 1", (scope,)).fetchone()[0].split()[:2]
    ids = [r[0] for r in conn.execute("SELECT id FROM memories WHERE scope = %s LIMIT 40", (scope,)).fetchall()]
    stmts = {
        "rows (recall)": (to_postgres(rows_from_table_sql("memory_vectors_1")), ("m", ids)),
        "exact (supersede)": (exact_sql("memory_vectors_1"), {"q": q, "s": chain, "n": 60}),
        "keyword (supersede)": (to_postgres(KEYWORD_SQL), (chain, words, 60, K1, B)),
    }
    for name, (sql, params) in stmts.items():
        for mode in ("force_custom_plan", "force_generic_plan"):
            conn.execute(f"SET plan_cache_mode = {mode}")
            cur = conn.cursor()
            for _ in range(2):  # the second run's figures (pages warm)
                plan = cur.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params, prepare=True).fetchone()[0][0]
            r = res.setdefault(name, {}).setdefault(mode, {"shapes": set(), "ms": [], "hit": []})
            r["shapes"].add(" > ".join(shape(plan["Plan"])))
            r["ms"].append(plan["Execution Time"]); r["hit"].append(plan["Plan"].get("Shared Hit Blocks", 0) + plan["Plan"].get("Shared Read Blocks", 0))
for name, modes in res.items():
    for mode, r in modes.items():
        ms = sorted(r["ms"])
        print(json.dumps({"stmt": name, "mode": mode, "shapes": sorted(r["shapes"]), "ms_p50": round(ms[len(ms)//2], 3), "pages_p50": sorted(r["hit"])[len(ms)//2]}))
