"""The ``shitsuji`` command line. ``main`` turns shitsuji errors into one clear line and exit 1."""

from __future__ import annotations

import sys

from ..errors import ShitsujiError
from . import (  # noqa: F401  (they register commands)
    _bench,
    _chat,
    _demo,
    _hooks,
    _household,
    _line,
    _mcp,
    _memory,
    _serve,
    _transfer,
)
from ._app import app, err_console


def main() -> None:
    try:
        app(prog_name="shitsuji")
    except ShitsujiError as exc:
        err_console.print(f"[red]error:[/] {exc}", soft_wrap=True)
        sys.exit(1)


__all__ = ["app", "main"]
