"""``shitsuji mcp``: serve the current project's memory to a coding agent over MCP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..mcp import project_root, project_scope
from ._app import STATE, app, err_console


@app.command("mcp")
def mcp_(
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            help="Project directory (default: the git root above the working directory, or the directory).",
            file_okay=False,
        ),
    ] = None,
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            min=1,
            max=65535,
            help="Serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio.",
        ),
    ] = None,
) -> None:
    """Run the MCP server (stdio) with tools remember, recall, read_memory, dedupe, forget, list_memories.

    The scope comes from the project directory, never from the agent.
    """
    from ..mcp import serve  # the SDK loads only when a server runs

    root = project_root(project)
    scope = project_scope(root)
    if http is not None:
        err_console.print(f"shitsuji MCP for {scope} on http://127.0.0.1:{http}/mcp")
    engine = STATE.engine()
    _start_hook_server()
    serve(engine, scope, root=root, http_port=http, zone=STATE.settings().time_zone)


def _start_hook_server() -> None:
    """The agent's session has begun: start the prompt hook's server now, so even its first prompt
    is answered by a loaded one (nothing happens when one runs or when it is switched off)."""
    from .._paths import default_cache_dir
    from ..hooks._client import server_enabled, socket_path, start_server

    settings = STATE.settings()
    if not server_enabled(True) or not settings.db.exists():
        return
    path = socket_path(settings.db, settings.embedder, settings.cache_dir or default_cache_dir())
    if path is not None:
        start_server(path, settings.db, settings.embedder)
