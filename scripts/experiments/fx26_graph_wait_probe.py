"""fx26: the build-observation probe (test_pg_graph_wait flake). Run: cp scripts/experiments/fx26_graph_wait_probe.py tests/test_zz_fx26_probe.py && .venv/bin/pytest -q -s tests/test_zz_fx26_probe.py; rm tests/test_zz_fx26_probe.py"""

import time
from pathlib import Path

from .conftest import Clock
from .test_pg_graph_builds import _old_snapshot
from .test_pg_graph_wait import _APP, _env, _pending, _start


def test_probe(pg_url: str, clock: Clock, tmp_path: Path) -> None:
    db = _pending(pg_url, clock)
    seen: dict[tuple[str, str], float] = {}
    with _old_snapshot(pg_url) as old:
        t0 = time.monotonic()
        cmd = _start(_env(pg_url, tmp_path), "reindex", "--graph-only")
        while time.monotonic() - t0 < 25:
            for command, rel in db.execute(
                "SELECT p.command, p.relid::regclass::text FROM pg_stat_progress_create_index p "
                "JOIN pg_stat_activity a ON a.pid = p.pid WHERE p.datname = current_database() "
                "AND a.application_name = ?",
                (_APP,),
            ).fetchall():
                seen.setdefault((command, rel), round(time.monotonic() - t0, 2))
            if any(r == "memory_vectors_1" for _, r in seen):
                break
        cmd.kill()
        cmd.communicate()
        old.rollback()
    print(sorted(seen.items(), key=lambda kv: kv[1]))
