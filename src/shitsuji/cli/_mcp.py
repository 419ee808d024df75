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
    serve(STATE.engine(), scope, root=root, http_port=http)
