"""How long each command takes as a fresh process, beside the floor no command can go under.

A person types ``shitsuji household show`` and waits for Python to start, shitsuji to import
and the command to run; a coding agent's hook does the same on every prompt. Each command
here runs as its own process (``python -c "from shitsuji.cli import main; main()" …``) on a
throw-away database with a household, a few memories and no model endpoint, ``runs`` times,
in rotation with the floors (``python -c pass`` and ``import shitsuji``) so that a noisy
machine weighs on all alike. The figure per command is the median wall time and that median
minus the ``import shitsuji`` floor, and beside it the CPU time the process used (user + system,
from ``getrusage``): a loaded machine stretches the wall time of every process, hardly the CPU
time, which reads as a quiet machine's wall time (start-up is one thread). ``baseline`` (another
checkout's ``src`` folder) adds its code, same interpreter and database, to the rotation and
reports the ratios.

Budgets (issue 24): memory commands ≤ 0.5 s above the floor, every other non-serving command
≤ 1 s. The memory commands that search or write load the embedding model they embed with,
which is part of their cost; those that only read rows (``list``, ``show``, ``stats``) never
make it. The load average at the start and the end is part of the figures: a loaded machine
stretches every process alike, so read the ratios to the baseline.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Progress = Callable[[str], None]

ENTRY = "import sys; from shitsuji.cli import main; sys.argv[0] = 'shitsuji'; main()"
MEMORY_BUDGET_S = 0.5
OTHER_BUDGET_S = 1.0
SCOPE = "household/bench/user/wife"
MEMORY = "{memory}"  # an argument replaced by the id of a memory the preparation stored

# (name, arguments, memory command?) — every command a person runs by hand that does not serve
COMMANDS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("--help", ("--help",), False),
    ("--version", ("--version",), False),
    ("remember", ("remember", "ゴミの日は月曜と木曜", "-s", SCOPE), True),
    ("recall", ("recall", "ゴミの日", "-s", SCOPE), True),
    ("list", ("list", "-s", SCOPE), True),
    ("stats", ("stats",), True),
    ("show", ("show", MEMORY), True),
    ("export", ("export", "-s", SCOPE), True),
    ("household todos", ("household", "todos", "--name", "bench"), False),
    ("household shopping", ("household", "shopping", "--name", "bench"), False),
    ("proposals list", ("proposals", "list", "--user", "wife"), False),
    ("audit", ("audit", "-n", "5"), False),
    ("line link", ("line", "link", "wife"), False),
    ("chat (no model)", ("chat", "--user", "wife", "-m", "こんにちは"), False),
    ("doctor", ("doctor",), False),
)


Command = tuple[str, tuple[str, ...], bool]


def run_startup(
    *,
    runs: int = 5,
    baseline: Path | None = None,
    embedder: str = "use",
    progress: Progress | None = None,
    commands: Sequence[Command] = COMMANDS,
) -> dict[str, Any]:
    """Median wall time per command (ms), above the ``import shitsuji`` floor, and the budgets met.

    Each side (ours, the baseline) has its own data folder and database, prepared by its own code:
    an older checkout refuses a database that newer code migrated, so one shared database left the
    baseline's every command failing at once — a figure of nothing."""
    with tempfile.TemporaryDirectory(prefix="shitsuji-startup-") as tmp:
        ours = str(Path(__file__).resolve().parents[2])
        variants = {"ours": ours} | ({"baseline": str(baseline.resolve())} if baseline else {})
        sides = {v: _side(Path(tmp) / v, src, embedder) for v, src in variants.items()}
        load = [os.getloadavg()[0]]
        floors: dict[str, list[float]] = {"python": [], "import": [], "import_cpu": []}
        times: dict[str, dict[str, list[tuple[float, float]]]] = {
            v: {c[0]: [] for c in commands} for v in variants
        }
        codes: dict[str, dict[str, int]] = {v: {} for v in variants}
        env = sides["ours"][0]
        for round_no in range(runs):
            if progress:
                progress(f"round {round_no + 1}/{runs}")
            floors["python"].append(_time([sys.executable, "-c", "pass"], env)[0])
            took, _, cpu = _time([sys.executable, "-c", "import shitsuji"], env)
            floors["import"].append(took)
            floors["import_cpu"].append(cpu)
            for name, args, _ in commands:
                for variant, (side_env, memory_id) in sides.items():
                    argv = [memory_id if arg == MEMORY else arg for arg in args]
                    took, code, cpu = _time([sys.executable, "-c", ENTRY, *argv], side_env)
                    times[variant][name].append((took, cpu))
                    codes[variant][name] = code
        load.append(os.getloadavg()[0])
    return _figures(floors, times, codes, commands) | {"load_average": [round(x, 2) for x in load]}


def _side(folder: Path, src: str, embedder: str) -> tuple[dict[str, str], str]:
    """One side's environment (its own database and cache below ``folder``, its code on the path),
    prepared by that code; and the id of the memory its preparation stored."""
    folder.mkdir(parents=True)
    env = _environment(folder, embedder) | {"PYTHONPATH": src}
    return env, _prepare(env)


def _figures(
    floors: dict[str, list[float]],
    times: dict[str, dict[str, list[tuple[float, float]]]],
    codes: dict[str, dict[str, int]],
    timed: Sequence[Command],
) -> dict[str, Any]:
    floor = statistics.median(floors["import"])
    floor_cpu = statistics.median(floors["import_cpu"])
    commands: dict[str, Any] = {}
    for name, _, memory in timed:
        median = statistics.median(wall for wall, _ in times["ours"][name])
        cpu = statistics.median(c for _, c in times["ours"][name])
        budget = MEMORY_BUDGET_S if memory else OTHER_BUDGET_S
        row: dict[str, Any] = {
            "median_ms": round(median, 1),
            "above_floor_ms": round(median - floor, 1),
            "cpu_ms": round(cpu, 1),
            "cpu_above_floor_ms": round(cpu - floor_cpu, 1),
            "budget_ms": budget * 1000,
            "within_budget": median - floor <= budget * 1000,
            "cpu_within_budget": cpu - floor_cpu <= budget * 1000,
            "exit_code": codes["ours"][name],
        }
        if "baseline" in times:
            base = statistics.median(wall for wall, _ in times["baseline"][name])
            base_cpu = statistics.median(c for _, c in times["baseline"][name])
            row["baseline_median_ms"] = round(base, 1)
            row["baseline_cpu_ms"] = round(base_cpu, 1)
            row["baseline_exit_code"] = codes["baseline"][name]
            row["ratio"] = round(median / base, 2)
            row["cpu_ratio"] = round(cpu / base_cpu, 2) if base_cpu else None
        commands[name] = row
    return {
        "python_floor_ms": round(statistics.median(floors["python"]), 1),
        "import_floor_ms": round(floor, 1),
        "import_floor_cpu_ms": round(floor_cpu, 1),
        "runs": len(floors["import"]),
        "commands": commands,
        "all_within_budget": all(r["within_budget"] for r in commands.values()),
    }


def _time(command: Sequence[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Wall milliseconds, exit code, and the CPU milliseconds (user + system) the process used: the
    CPU figure hardly moves with the machine's load, so it reads as a quiet machine's wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False, timeout=300)
    took = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return took, done.returncode, cpu


def _environment(tmp: Path, embedder: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_", "OPENAI_"))}
    return keep | {
        "SHITSUJI_DB": str(tmp / "startup.db"),
        "SHITSUJI_CACHE_DIR": str(tmp / "cache"),
        "SHITSUJI_EMBEDDER": embedder,
        "SHITSUJI_HOOK_SERVER": "off",
        "COLUMNS": "120",
    }


def _prepare(env: dict[str, str]) -> str:
    """A household and a few memories, made through the command line itself (the code on ``env``'s
    path: each side makes its own database); the first memory's id."""
    steps: list[tuple[str, ...]] = [
        ("household", "init", "--name", "bench", "-m", "wife", "-m", "husband", "--time-zone", "Asia/Tokyo"),
        ("remember", "紅茶はミルクティーが好き", "-s", SCOPE, "--json"),
        ("remember", "Plays futsal every Thursday night", "-s", SCOPE),
    ]
    memory_id = ""
    for args in steps:
        done = subprocess.run(
            [sys.executable, "-c", ENTRY, *args],
            env=env,
            capture_output=True,
            check=False,
            timeout=300,
        )
        if done.returncode:
            raise RuntimeError(f"preparing the startup bench failed at {args}: {done.stderr.decode()[-400:]}")
        if "--json" in args:
            memory_id = str(json.loads(done.stdout)["id"])
    return memory_id


def format_startup(data: dict[str, Any]) -> str:
    """The table ``bench startup`` prints."""
    lines = [
        f"floors: python -c pass {data['python_floor_ms']} ms, import shitsuji {data['import_floor_ms']} ms "
        f"({data['import_floor_cpu_ms']} ms of CPU) "
        f"(median of {data['runs']}); load average {data['load_average'][0]} at the start, "
        f"{data['load_average'][1]} at the end"
    ]
    for name, row in data["commands"].items():
        base = (
            f"  baseline {row['baseline_median_ms']} ms ×{row['ratio']}, CPU {row['baseline_cpu_ms']} ms "
            f"×{row['cpu_ratio']}"
            if "ratio" in row
            else ""
        )
        # a command that failed measured nothing: say so beside its figure
        failed = "".join(
            f"  {who}EXIT {row[key]}"
            for who, key in (("", "exit_code"), ("baseline ", "baseline_exit_code"))
            if row.get(key)
        )
        mark = "ok" if row["within_budget"] else "OVER"
        cpu_mark = "ok" if row["cpu_within_budget"] else "OVER"
        lines.append(
            f"  {name:<20} {row['median_ms']:>8} ms  +{row['above_floor_ms']:>7} ms  "
            f"(budget {row['budget_ms']:.0f}) {mark}; CPU {row['cpu_ms']} ms +{row['cpu_above_floor_ms']} {cpu_mark}{base}{failed}"
        )
    return "\n".join(lines)


__all__ = ["COMMANDS", "format_startup", "run_startup"]
