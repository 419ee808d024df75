"""The command line's contract with scripts: every command takes --json, errors are one line
``error: …`` on stderr with a documented exit code, and nothing wraps when output is not a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from shitsuji.cli import app

# servers write logs, not results; export always writes JSONL (the README says so)
NO_JSON = {"serve", "worker", "remind run", "mcp", "hook serve", "export"}
ENTRY = "import sys; from shitsuji.cli import main; sys.argv[0] = 'shitsuji'; main()"


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    subcommands = getattr(command, "commands", None)
    if subcommands:
        for name, sub in subcommands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path), command


def test_every_command_takes_json() -> None:
    missing = [
        name
        for name, command in _commands(typer.main.get_command(app))
        if name not in NO_JSON and "--json" not in {o for p in command.params for o in getattr(p, "opts", [])}
    ]
    assert missing == []


def _run(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
    env |= {"SHITSUJI_DB": str(tmp_path / "x.db"), "SHITSUJI_EMBEDDER": "hash", "COLUMNS": "40"}
    env["SHITSUJI_CACHE_DIR"] = str(tmp_path / "cache")
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["nosuch"], 2, "No such command 'nosuch'"),
        (["remember"], 2, "Missing argument"),
        (["recall", "x", "-s", "a/b", "-k", "0"], 2, "-k"),
        (
            ["household", "todos", "--name", "a-very-long-household-name-that-would-wrap-at-forty"],
            1,
            "no database",
        ),
    ],
)
def test_errors_are_one_line_on_stderr(args: list[str], code: int, says: str, tmp_path: Path) -> None:
    done = _run(args, tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], done.stderr


def test_hook_prompt_json_is_an_object_even_when_nothing_fits(tmp_path: Path) -> None:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    payload = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": "hello", "cwd": str(tmp_path / "p")}
    )
    done = _run(["hook", "prompt", "--no-server", "--json"], tmp_path, stdin=payload)
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), dict)


def test_demo_json(tmp_path: Path) -> None:
    done = _run(["demo", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)["steps"]
    recalls = [s for s in steps if s["step"] == "recall"]
    assert recalls and all(h["whose"] != "OTHER" for s in recalls for h in s["hits"])


READING = [
    ["stats"],
    ["recall", "牛乳", "-s", "household/a"],
    ["list"],
    ["show", "abcd"],
    ["dedupe", "x", "-s", "a/b"],
    ["export"],
    ["forget", "abcd"],
    ["household", "shopping"],
    ["household", "todos"],
    ["proposals", "list", "--user", "wife"],
    ["audit"],
    ["line", "link", "wife"],
    ["chat", "--user", "wife", "-m", "hi"],
]


@pytest.mark.parametrize("args", READING, ids=lambda a: " ".join(a[:2]))
def test_reading_a_missing_database_creates_nothing(args: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.db"
    done = _run(["--db", str(missing), *args], tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("error: no database at "), done.stderr
    assert not (tmp_path / "no").exists()
