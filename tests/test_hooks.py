"""The prompt hook and install-hooks, with the payload shapes Claude Code and Codex send."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import shitsuji.hooks
from shitsuji.hooks import answer_prompt
from shitsuji.mcp import path_scope, project_scope
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store

from .conftest import Cli


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "u" / "projects"
    for name in ("main-project", "other-project"):
        (root / name / ".git").mkdir(parents=True)
    (root / "main-project" / "src").mkdir()
    return root


@pytest.fixture
def memory(db_path: Path) -> Iterator[MemoryEngine]:
    store = open_store(db_path)
    yield MemoryEngine(store, HashEmbedder())
    store.close()


def claude_payload(prompt: str, cwd: Path) -> str:
    """A UserPromptSubmit payload as Claude Code sends it."""
    return json.dumps(
        {
            "session_id": "7f0c2a9e-1b1d-4c3e-9a57-0d1f6b2c8e11",
            "transcript_path": str(Path.home() / ".claude/projects/x/7f0c2a9e.jsonl"),
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    )


def codex_payload(prompt: str, cwd: Path) -> str:
    """The same event as Codex sends it (adds model and turn_id)."""
    return json.dumps(
        {
            "session_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
            "transcript_path": None,
            "cwd": str(cwd),
            "hook_event_name": "UserPromptSubmit",
            "model": "gpt-5-codex",
            "turn_id": "019d036e-3164-72c3-a170-98925564c4fc",
            "prompt": prompt,
        }
    )


def context_of(output: str) -> str:
    if not output:
        return ""
    data = json.loads(output)
    assert data["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    text: str = data["hookSpecificOutput"]["additionalContext"]
    return text


def test_claude_and_codex_payloads_get_the_projects_relevant_memories(
    projects: Path, memory: MemoryEngine, db_path: Path
) -> None:
    main_project = projects / "main-project"
    saved = memory.remember("Run the tests with make test, never bare pytest", project_scope(main_project))
    memory.remember("The other project runs its tests with tox", project_scope(projects / "other-project"))
    shared = memory.remember("All my projects run tests in CI on every push", path_scope(projects.parent))
    for payload in (claude_payload, codex_payload):
        context = context_of(answer_prompt(payload("how do I run the tests?", main_project / "src"), db_path))
        lines = context.splitlines()
        assert project_scope(main_project) in lines[0]
        assert lines[1] == f"- Run the tests with make test, never bare pytest [id {saved.memory.id}, misc]"
        assert lines[2].endswith(f"[id {shared.memory.id}, misc, from {shared.memory.scope}]")
        assert "tox" not in context  # a sibling project's memory never leaks
    nested = json.dumps({"cwd": str(main_project), "event": {"user_prompt": "run the tests"}})
    assert "make test" in context_of(answer_prompt(nested, db_path))


def test_nothing_is_printed_when_nothing_is_relevant(
    projects: Path, memory: MemoryEngine, db_path: Path
) -> None:
    """The relevance cut: top-k alone would attach a memory to every prompt.

    Each prompt below shares at most one keyword term with a stored memory ("deploy",
    "test"), which ranked search would still return first; two shared terms are needed.
    """
    main_project = projects / "main-project"
    scope = project_scope(main_project)
    memory.remember("Run the tests with make test, never bare pytest", scope)
    memory.remember("Deploy with scripts/deploy.sh after tagging a release", scope)
    for prompt in ("thanks, go on", "what is this all about?", "fix the deploy button colour", "a unit test"):
        assert answer_prompt(claude_payload(prompt, main_project), db_path) == "", prompt
    assert "deploy.sh" in context_of(
        answer_prompt(claude_payload("how do we deploy a release?", main_project), db_path)
    )
    assert "make test" in context_of(
        answer_prompt(claude_payload("テストの実行 run tests", main_project), db_path)
    )


def test_context_stays_within_budget_and_k(projects: Path, memory: MemoryEngine, db_path: Path) -> None:
    main_project = projects / "main-project"
    scope = project_scope(main_project)
    text = "Parser pitfall {i}: the tokenizer drops trailing whitespace; strip lines before lexing. " * 4
    memory.add_many(
        NewMemory(content=text.format(i=i), scope=scope) for i in range(30)
    )  # keeps near-duplicates
    out = answer_prompt(claude_payload("parser tokenizer pitfall", main_project), db_path, budget=900)
    context = context_of(out)
    assert 0 < len(context) <= 900 and context.count("\n- ") <= 5
    few = context_of(answer_prompt(claude_payload("parser tokenizer pitfall", main_project), db_path, k=2))
    assert few.count("\n- ") == 2
    plain = answer_prompt(claude_payload("parser tokenizer", main_project), db_path, plain=True)
    assert plain.startswith("Memories saved for this project")


def test_no_database_means_no_output_and_no_file(projects: Path, tmp_path: Path) -> None:
    missing = tmp_path / "never.db"
    assert answer_prompt(claude_payload("run the tests", projects / "main-project"), missing) == ""
    assert not missing.exists()


def test_cli_and_fast_entry_point_agree(
    projects: Path, memory: MemoryEngine, db_path: Path, cli: Cli
) -> None:
    main_project = projects / "main-project"
    memory.remember(
        "Migrations live in db/migrations and run with alembic upgrade head", project_scope(main_project)
    )
    payload = codex_payload("where do the db migrations live?", main_project)
    via_cli = cli("hook", "prompt", stdin=payload)
    assert via_cli.code == 0 and "alembic upgrade head" in context_of(via_cli.out)
    fast = subprocess.run(
        [sys.executable, "-m", "shitsuji.hooks", "prompt", "--db", str(db_path)],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    )
    assert fast.stdout == via_cli.out
    entry = Path(shitsuji.hooks.__file__).with_name("prompt_entry.py")  # what install-hooks writes
    by_path = subprocess.run(
        [sys.executable, str(entry), "prompt", "--db", str(db_path)],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    )
    assert by_path.stdout == via_cli.out


def test_with_memories_in_postgresql_the_hook_reads_them_there(projects: Path, pg_url: str, cli: Cli) -> None:
    main_project = projects / "main-project"
    store = open_store(pg_url)
    MemoryEngine(store, HashEmbedder()).remember(
        "Migrations live in db/migrations and run with alembic upgrade head", project_scope(main_project)
    )
    store.close()
    payload = codex_payload("where do the db migrations live?", main_project)
    via_cli = cli("--database-url", pg_url, "hook", "prompt", stdin=payload)
    assert via_cli.code == 0 and "alembic upgrade head" in context_of(via_cli.out)
    fast = subprocess.run(
        [sys.executable, "-m", "shitsuji.hooks", "prompt"],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "SHITSUJI_DATABASE_URL": pg_url, "SHITSUJI_EMBEDDER": "hash"},
    )
    assert fast.stdout == via_cli.out


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "the hook payload on stdin is not JSON"),
        ('["a list"]', "must be a JSON object"),
        ('{"cwd": "/tmp"}', 'has no "prompt" text'),
    ],
)
def test_bad_payloads_fail_without_blocking_the_prompt(
    db_path: Path, cli: Cli, stdin: str, message: str
) -> None:
    run = cli("hook", "prompt", stdin=stdin)
    assert run.code == 1 and message in run.err  # exit 2 would block the user's prompt
    fast = subprocess.run(
        [sys.executable, "-m", "shitsuji.hooks", "prompt", "--db", str(db_path)],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert fast.returncode == 1 and message in fast.stderr and fast.stdout == ""


# -- install-hooks ------------------------------------------------------------


def test_install_for_claude_code_shows_asks_merges_and_is_idempotent(
    projects: Path, memory: MemoryEngine, db_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = projects / "main-project"
    settings = project / ".claude" / "settings.json"
    servers = project / ".mcp.json"
    settings.parent.mkdir()
    other_hook = {"hooks": [{"type": "command", "command": "echo branch: main"}]}
    settings.write_text(
        json.dumps(
            {"permissions": {"allow": ["Bash(make test)"]}, "hooks": {"UserPromptSubmit": [other_hook]}}
        )
    )
    servers.write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}))
    before = (settings.read_text(), servers.read_text())
    monkeypatch.delenv("SHITSUJI_DB")  # the default database: nothing to pass on
    monkeypatch.delenv("SHITSUJI_EMBEDDER")

    declined = cli("install-hooks", "--client", "claude-code", "--project", str(project), stdin="n\n")
    assert declined.code == 1 and "+++ " in declined.out and "prompt_entry.py prompt" in declined.out
    assert (settings.read_text(), servers.read_text()) == before

    done = cli("install-hooks", "--client", "claude-code", "--project", str(project), "--yes")
    assert done.code == 0 and f"wrote {settings}" in done.out
    config = json.loads(settings.read_text())
    assert config["permissions"] == {"allow": ["Bash(make test)"]}
    groups = config["hooks"]["UserPromptSubmit"]
    assert groups[0] == other_hook and len(groups) == 2
    command = groups[1]["hooks"][0]["command"]
    mcp = json.loads(servers.read_text())["mcpServers"]
    assert mcp["github"] == {"command": "gh-mcp", "args": []}
    assert mcp["shitsuji"] == {"type": "stdio", "command": sys.executable, "args": ["-m", "shitsuji", "mcp"]}

    after = (settings.read_text(), servers.read_text())
    again = cli("install-hooks", "--client", "claude-code", "--project", str(project), "--json", "--yes")
    assert [f["changed"] for f in json.loads(again.out)["files"]] == [False, False]
    assert (settings.read_text(), servers.read_text()) == after
    assert "already set up" in cli("install-hooks", "--client", "claude-code", "--project", str(project)).out

    # the installed command really works as Claude Code would run it
    memory.remember("Release notes go in CHANGES.md under Unreleased", project_scope(project))
    ran = subprocess.run(
        command,
        shell=True,
        input=claude_payload("where do release notes go?", project),
        capture_output=True,
        text=True,
        check=True,
        env={
            "SHITSUJI_DB": str(db_path),
            "PATH": "/usr/bin:/bin",
            "SHITSUJI_HOOK_SERVER": "off",  # no resident server left behind (tests/test_hook_server.py)
            "SHITSUJI_CACHE_DIR": os.environ["SHITSUJI_CACHE_DIR"],
        },
    )
    assert "CHANGES.md" in context_of(ran.stdout)


def test_install_for_codex_keeps_other_config_and_updates_a_stale_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.delenv("SHITSUJI_DB")
    monkeypatch.delenv("SHITSUJI_EMBEDDER")
    config = home / "config.toml"
    config.write_text(
        'model = "gpt-5-codex"\n\n'
        "[mcp_servers.shitsuji]\n"
        'command = "/old/venv/bin/python"\n'
        'args = ["-m", "shitsuji", "mcp"]\n\n'
        "[mcp_servers.shitsuji.env]\n"
        'SHITSUJI_EMBEDDER = "hash"\n\n'
        "[mcp_servers.docs]\n"
        'command = "docs-mcp"\n\n'
        "[features]\n"
        "codex_hooks = true\n"
    )
    stale_hook = {"type": "command", "command": "/old/venv/bin/python -m shitsuji.hooks prompt"}
    (home / "hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [stale_hook]}]}}))
    run = cli("install-hooks", "--client", "codex", "--yes")
    assert run.code == 0, run.err
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5-codex" and parsed["features"] == {"codex_hooks": True}
    assert parsed["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert parsed["mcp_servers"]["shitsuji"] == {"command": sys.executable, "args": ["-m", "shitsuji", "mcp"]}
    assert config.read_text().count("[mcp_servers.shitsuji]") == 1
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    # the stale ``-m`` hook updated in place to the entry file run by path (``hooks/prompt_entry.py``)
    assert len(hooks) == 1 and len(hooks[0]["hooks"]) == 1
    entry = Path(shitsuji.hooks.__file__).with_name("prompt_entry.py").resolve()
    assert hooks[0]["hooks"][0]["command"] == shlex.join([sys.executable, str(entry), "prompt"])

    snapshot = (config.read_text(), (home / "hooks.json").read_text())
    assert "already set up" in cli("install-hooks", "--client", "codex").out
    assert (config.read_text(), (home / "hooks.json").read_text()) == snapshot


def test_install_passes_an_explicit_database_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.delenv("SHITSUJI_EMBEDDER")
    db = tmp_path / "team.db"
    assert cli("--db", str(db), "install-hooks", "--client", "codex", "--yes").code == 0
    parsed = tomllib.loads((tmp_path / "codex" / "config.toml").read_text())
    assert parsed["mcp_servers"]["shitsuji"]["args"] == ["-m", "shitsuji", "--db", str(db.resolve()), "mcp"]
    hook = json.loads((tmp_path / "codex" / "hooks.json").read_text())["hooks"]["UserPromptSubmit"][0]
    assert hook["hooks"][0]["command"].endswith(f"prompt --db {db.resolve()}")


def test_install_refuses_broken_config_and_unknown_clients(projects: Path, cli: Cli) -> None:
    project = projects / "main-project"
    (project / ".mcp.json").write_text("{not json")
    run = cli("install-hooks", "--client", "claude-code", "--project", str(project), "--yes")
    assert run.code == 1 and ".mcp.json is not valid JSON" in run.err
    assert not (project / ".claude").exists()  # nothing was written
    unknown = cli("install-hooks", "--client", "cursor", "--yes")
    assert unknown.code == 1 and "unknown client 'cursor': choose one of claude-code, codex" in unknown.err
    assert "--json cannot ask" in cli("install-hooks", "--client", "codex", "--json").err


def test_bench_hook_reports_latency(cli: Cli) -> None:
    run = cli("bench", "hook", "--n", "60", "--runs", "3", "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["memories"] == 60 and data["embedder"] == "hash" and data["runs"] == 3
    assert data["python_start_p50_ms"] > 0 and data["import_p50_ms"] > 0  # the floor, reported beside
    assert data["hook_p50_ms"] <= data["hook_p95_ms"] and data["runs_with_context"] >= 0
    # the same prompts through a hook server, in turn with the hook alone; both find the same memories
    assert data["server_hook_p50_ms"] <= data["server_hook_p95_ms"] and data["server_start_s"] > 0
    assert data["server_runs_with_context"] == data["runs_with_context"]
    # CPU per prompt beside wall time: a fresh hook process costs some CPU, never more than its wall
    # time allows on this machine's cores; the server's share is counted in the server's figure
    cores = os.cpu_count() or 1
    assert 0 < data["hook_cpu_p50_ms"] <= data["hook_p95_ms"] * cores
    assert data["server_hook_cpu_p50_ms"] > 0 and data["python_start_cpu_p50_ms"] > 0


def test_the_fast_entry_point_loads_neither_the_cli_nor_the_sdks() -> None:
    heavy = "{'typer', 'rich', 'mcp', 'anthropic', 'openai', 'shitsuji.hooks._install'}"
    probe = f"import sys, shitsuji.hooks.__main__; print(sorted({heavy} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_the_cli_starts_without_the_model_sdks() -> None:
    probe = "import sys, shitsuji.cli; print(sorted({'anthropic', 'openai'} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"  # they cost ~1 s and only `chat` needs them


def test_install_passes_the_database_of_the_environment_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    db = tmp_path / "from-env.db"
    monkeypatch.setenv("SHITSUJI_DB", str(db))  # as `export SHITSUJI_DB=…` in the shell
    assert cli("install-hooks", "--client", "codex", "--yes").code == 0
    parsed = tomllib.loads((tmp_path / "codex" / "config.toml").read_text())
    assert parsed["mcp_servers"]["shitsuji"]["args"] == [
        "-m",
        "shitsuji",
        "--db",
        str(db.resolve()),
        "--embedder",
        "hash",
        "mcp",
    ]
