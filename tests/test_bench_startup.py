"""``shitsuji bench startup --baseline``: each side runs on its own database, made by its own code.

The baseline here is a small stand-in checkout (a ``shitsuji`` package whose ``cli.main`` acts as an
older release does: it refuses a database it did not make, as a real one refuses a schema migrated by
newer code). Before each side had its own data folder, every baseline command failed at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shitsuji.bench.startup import MEMORY, SCOPE, format_startup, run_startup

OLDER_CLI = """
import json, os, sys
from pathlib import Path


def main():
    db = Path(os.environ["SHITSUJI_DB"])
    made = db.with_name(db.name + ".by-baseline")
    with open(os.environ["OLDER_LOG"], "a") as log:
        log.write(json.dumps({"argv": sys.argv[1:], "db": str(db)}) + "\\n")
    if db.exists() and not made.exists():
        print("error: the database was written by a newer shitsuji", file=sys.stderr)
        sys.exit(1)
    db.touch()
    made.touch()
    if "--json" in sys.argv:
        print(json.dumps({"id": "m_baseline"}))
"""


def test_the_baseline_runs_on_its_own_database_prepared_by_its_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "older.jsonl"
    monkeypatch.setenv("OLDER_LOG", str(log))
    src = tmp_path / "older" / "src"
    (src / "shitsuji").mkdir(parents=True)
    (src / "shitsuji" / "__init__.py").write_text("")
    (src / "shitsuji" / "cli.py").write_text(OLDER_CLI)
    commands = (("list", ("list", "-s", SCOPE), True), ("show", ("show", MEMORY), True))
    data = run_startup(runs=1, baseline=src, embedder="hash", commands=commands)
    rows = data["commands"]
    assert {name: (r["exit_code"], r["baseline_exit_code"]) for name, r in rows.items()} == {
        "list": (0, 0),
        "show": (0, 0),
    }
    assert "EXIT" not in format_startup(data)
    # the baseline's own preparation ran (a household, memories) and its `show` got its own memory
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["argv"][:2] for c in calls] == [
        ["household", "init"],
        ["remember", "紅茶はミルクティーが好き"],
        ["remember", "Plays futsal every Thursday night"],
        ["list", "-s"],
        ["show", "m_baseline"],
    ]
    assert len({c["db"] for c in calls}) == 1  # one database of its own, throughout


def test_a_failing_side_is_marked_in_the_table() -> None:
    data = {
        "python_floor_ms": 10.0,
        "import_floor_ms": 20.0,
        "import_floor_cpu_ms": 15.0,
        "runs": 1,
        "load_average": [1.0, 1.0],
        "commands": {
            "list": {
                "median_ms": 300.0, "above_floor_ms": 280.0, "cpu_ms": 250.0, "cpu_above_floor_ms": 235.0,
                "budget_ms": 500.0, "within_budget": True, "cpu_within_budget": True, "exit_code": 0,
                "baseline_median_ms": 40.0, "baseline_cpu_ms": 30.0, "baseline_exit_code": 1,
                "ratio": 7.5, "cpu_ratio": 8.33,
            }
        },
    }  # fmt: skip
    assert "baseline EXIT 1" in format_startup(data)
