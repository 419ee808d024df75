"""Hooks for coding agents: ``hook prompt``, ``install-hooks``, ``bench hook`` and ``bench hook-relevance``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .._paths import default_cache_dir
from ..errors import UserInputError
from ..hooks.__main__ import DEFAULT_BUDGET, DEFAULT_K  # the hook's own entry: no numpy
from ..hooks._client import IDLE_TIMEOUT, server_answer, server_enabled, socket_path, start_server
from ..hooks._install import CLIENTS, Client, Commands, codex_home, plan, summary
from ._app import STATE, JsonFlag, app, console, err_console, print_json
from ._bench import bench_app

hook_app = typer.Typer(help="Hooks that coding agents (Claude Code, Codex) run.", no_args_is_help=True)
app.add_typer(hook_app, name="hook")


@hook_app.command()
def prompt(
    k: Annotated[
        int, typer.Option("-k", "--k", min=1, max=20, help="At most this many memories.")
    ] = DEFAULT_K,
    budget: Annotated[
        int, typer.Option("--budget", min=200, help="At most this many characters of context.")
    ] = DEFAULT_BUDGET,
    plain: Annotated[bool, typer.Option("--plain", help="Print plain text instead of hook JSON.")] = False,
    server: Annotated[
        bool,
        typer.Option(
            "--server/--no-server",
            help="Ask the hook server for this database, and start one when none runs "
            "(env SHITSUJI_HOOK_SERVER=off: never).",
        ),
    ] = True,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Always print a JSON object: the hook's output, or {} when nothing fits."
        ),
    ] = False,
) -> None:
    """Read a UserPromptSubmit payload on stdin; print the project's relevant memories, or nothing."""
    if as_json and plain:
        raise UserInputError("--json and --plain ask for two different outputs: choose one")
    settings = STATE.settings()
    payload = sys.stdin.read()
    cache = settings.cache_dir or default_cache_dir()
    # the server keeps a SQLite file's snapshots: memories in PostgreSQL are answered here
    use_server = server_enabled(server) and settings.database_url is None and settings.db.exists()
    path = socket_path(settings.db, settings.embedder, cache) if use_server else None
    out = server_answer(path, payload, k=k, budget=budget, plain=plain)
    if out is None:
        from ..hooks._prompt import answer_prompt, one_blas_thread

        one_blas_thread()  # a one-shot process: see its doc
        out = answer_prompt(
            payload,
            settings.database,
            embedder=settings.embedder,
            k=k,
            budget=budget,
            plain=plain,
            zone=settings.time_zone,
        )
        if path is not None:
            start_server(path, settings.db, settings.embedder)
    if out:
        sys.stdout.write(out + "\n")
    elif as_json:
        sys.stdout.write("{}\n")


@hook_app.command("serve")
def serve_hooks(
    idle_timeout: Annotated[
        float, typer.Option("--idle-timeout", min=1, help="Exit after this many seconds without a prompt.")
    ] = IDLE_TIMEOUT,
) -> None:
    """Answer prompt hooks for this database from a resident process (the hook starts one by itself)."""
    from ..hooks.__main__ import serve

    settings = STATE.settings()
    code = serve(argparse.Namespace(db=settings.db, embedder=settings.embedder, idle_timeout=idle_timeout))
    if code:
        raise typer.Exit(code)


@app.command("install-hooks")
def install_hooks(
    client: Annotated[str, typer.Option("--client", help=f"One of: {', '.join(CLIENTS)}.")],
    project: Annotated[
        Path | None,
        typer.Option(
            "--project", file_okay=False, help="claude-code: project to configure (default: the current one)."
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Write without asking.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Add the prompt hook and the MCP server to a coding agent's config (shows the change, then asks)."""
    from ..mcp import project_root

    chosen = _client(client)
    if as_json and not yes:
        raise UserInputError("--json cannot ask before writing: add --yes")
    # the database and embedder chosen here, by flag or environment, are written into the agent's config
    # (the agent runs the hook without this shell's SHITSUJI_DB)
    chosen_db = STATE.db or (Path(os.environ["SHITSUJI_DB"]) if os.environ.get("SHITSUJI_DB") else None)
    commands = Commands.for_this_python(
        db=chosen_db, embedder=STATE.embedder or os.environ.get("SHITSUJI_EMBEDDER") or None
    )
    changes = plan(chosen, commands, project=project_root(project), codex_home=codex_home())
    pending = [c for c in changes if c.changed]
    if not as_json:
        for change in pending:
            console.print(change.diff(), markup=False, highlight=False, end="")
        if not pending:
            console.print(f"{chosen} is already set up; nothing to change")
            return
        if not yes and not typer.confirm(f"Write {len(pending)} file(s)?", default=True):
            raise typer.Abort()
    for change in pending:
        change.write()
    if as_json:
        print_json({"client": chosen, "files": summary(changes)})
        return
    for change in pending:
        console.print(f"wrote {change.path}")
    if chosen == "claude-code":
        err_console.print(
            "restart Claude Code in the project and approve the 'shitsuji' MCP server when asked"
        )
    else:
        err_console.print("restart Codex; on older versions enable hooks with [features] codex_hooks = true")


def _client(name: str) -> Client:
    if name == "claude-code":
        return "claude-code"
    if name == "codex":
        return "codex"
    raise UserInputError(f"unknown client {name!r}: choose one of {', '.join(CLIENTS)}")


@bench_app.command("hook")
def hook_bench(
    n: Annotated[int, typer.Option("--n", min=10, help="Memories in the project's scope.")] = 10_000,
    runs: Annotated[int, typer.Option("--runs", min=3, help="Hook processes timed.")] = 40,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="The src folder of another checkout: its hook and its server are timed beside ours.",
        ),
    ] = None,
    keep: Annotated[
        Path | None,
        typer.Option(
            "--keep", help="Keep the project and database in this folder, filled once for later runs."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Latency of the prompt hook as agents run it: one fresh process per prompt, p50/p95, alone and
    with a hook server."""
    from ..bench.hook import run_hook_bench

    embedder = STATE.settings().embedder
    _show(
        run_hook_bench(
            embedder=embedder, n=n, runs=runs, baseline=baseline, keep=keep, progress=_progress(as_json)
        ),
        as_json,
    )


@bench_app.command("hook-relevance")
def hook_relevance_bench(as_json: JsonFlag = False) -> None:
    """Right memory injected / noise injected by the prompt hook on its labelled set, with calibration."""
    from ..bench.hook_relevance import run_hook_relevance

    _show(
        run_hook_relevance(
            embedder=STATE.settings().embedder, progress=_progress(as_json), leave_sets_out=True
        ),
        as_json,
    )


def _progress(as_json: bool) -> Callable[[str], None] | None:
    return None if as_json else (lambda msg: err_console.print(f"[dim]{msg}[/]"))


def _show(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        console.print(f"  {key:<22} {value}")
