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

from .conftest import Cli

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


# Every command a person or a script runs, with the arguments it needs over a household
# "futari" (wife, husband), one memory and one anniversary; ``{…}`` is filled in at run time.
# The benches (minutes each) and the servers are left out; every other command must be here.
WITH_JSON: dict[str, list[str]] = {
    "audit": ["audit", "-n", "3"],
    "backup": ["backup", "{backup}"],
    "restore-backup": ["--db", "{fresh}", "restore-backup", "{backup}"],
    "chat": ["chat", "--user", "wife", "-m", "hi"],  # no model configured: an error, nothing on stdout
    "doctor": ["doctor"],
    "install-hooks": ["install-hooks", "--client", "claude-code", "--project", "{project}", "--yes"],
    "remember": ["remember", "牛乳を買う", "-s", "household/futari"],
    "recall": ["recall", "牛乳", "-s", "household/futari"],
    "dedupe": ["dedupe", "牛乳を買う", "-s", "household/futari"],
    "list": ["list"],
    "show": ["show", "{memory}"],
    "forget": ["forget", "{memory}"],
    "restore": ["restore", "{memory}"],
    "purge": ["purge", "--yes"],
    "reindex": ["reindex"],
    "stats": ["stats"],
    "migrate": ["migrate"],  # no --to/--from: an error
    "import": ["import", "{jsonl}"],
    "household init": ["household", "init", "--name", "other", "--member", "solo"],
    "household shopping": ["household", "shopping", "--name", "futari"],
    "household events": ["household", "events", "--name", "futari"],
    "household todos": ["household", "todos", "--name", "futari"],
    "household expenses": ["household", "expenses", "--name", "futari"],
    "household time-zone": ["household", "time-zone", "Asia/Tokyo", "--name", "futari"],
    "household add-member": ["household", "add-member", "guest", "--name", "futari", "--no-password"],
    "household set-password": ["household", "set-password", "wife", "--name", "futari", "--password-stdin"],
    "household anniversary list": [
        "household",
        "anniversary",
        "list",
        "--member",
        "wife",
        "--name",
        "futari",
    ],
    "household anniversary add": [
        "household",
        "anniversary",
        "add",
        "結婚記念日",
        "2020-06-01",
        "--member",
        "wife",
        "--name",
        "futari",
    ],
    "household anniversary remove": [
        "household",
        "anniversary",
        "remove",
        "{anniversary}",
        "--member",
        "wife",
        "--name",
        "futari",
    ],
    "proposals list": ["proposals", "list", "--user", "wife"],
    "proposals approve": ["proposals", "approve", "nosuchcard", "--user", "wife"],  # an error
    "proposals reject": ["proposals", "reject", "nosuchcard", "--user", "wife"],  # an error
    "hook prompt": ["hook", "prompt", "--no-server"],
    "line link": ["line", "link", "wife"],
    "remind set": ["remind", "set", "wife", "--lead", "30"],
    "remind status": ["remind", "status"],
    "remind list": ["remind", "list", "wife"],
}
EXPECTED_ERRORS = {"chat", "migrate", "proposals approve", "proposals reject"}


def test_every_command_prints_json_or_one_error_line(cli: Cli, tmp_path: Path) -> None:
    walked = {
        name
        for name, _ in _commands(typer.main.get_command(app))
        if name not in NO_JSON | {"demo"} and not name.startswith("bench ")
    }  # demo: test_demo_json
    assert walked == set(WITH_JSON), "a command without a row here: add it"
    assert cli("household", "init", "--name", "futari", "-m", "wife", "-m", "husband").code == 0
    filled = {
        "memory": cli("remember", "紅茶が好き", "-s", "household/futari/user/wife", "--json").json()["id"],
        "anniversary": cli(
            "household", "anniversary", "add", "誕生日", "1990-04-01", "--member", "wife", "--json"
        ).json()["id"],
        "backup": str(tmp_path / "backup.db"),
        "fresh": str(tmp_path / "fresh.db"),
        "project": str(tmp_path / "project"),
        "jsonl": str(tmp_path / "in.jsonl"),
    }
    (tmp_path / "project" / ".git").mkdir(parents=True)
    (tmp_path / "in.jsonl").write_text('{"content": "ゴミの日は月曜", "scope": "household/futari"}\n')
    stdin = {
        "household set-password": "atarashii-pass\n",
        "hook prompt": json.dumps(
            {"hook_event_name": "UserPromptSubmit", "prompt": "紅茶", "cwd": str(tmp_path / "project")}
        ),
    }
    for name, args in WITH_JSON.items():
        done = cli(*[a.format(**filled) for a in args], "--json", stdin=stdin.get(name, ""))
        if name in EXPECTED_ERRORS:
            assert done.code == 1 and done.out == "" and done.err.startswith("error: "), (name, done)
            assert len(done.err.strip().splitlines()) == 1, (name, done.err)
            continue
        assert done.code in (0, 1) and done.out.strip(), (name, done)  # doctor: 1 when a check fails
        json.loads(done.out)  # the whole of stdout is one JSON value
