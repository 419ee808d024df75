"""The ``shitsuji`` command line. ``main`` turns shitsuji errors into one clear line and exit 1."""

from __future__ import annotations

import sys

from rich.markup import escape

from ..errors import ShitsujiError, UserInputError
from . import (  # noqa: F401  (they register commands)
    _anniversary,
    _audit,
    _bench,
    _chat,
    _demo,
    _hooks,
    _household,
    _line,
    _mcp,
    _memory,
    _migrate,
    _serve,
    _transfer,
)
from ._app import app, err_console


def main() -> None:
    try:
        _check_arguments(sys.argv[1:])
        app(prog_name="shitsuji")
    except ShitsujiError as exc:
        shown = (
            str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
        )  # a stray surrogate must not crash
        err_console.print(f"[red]error:[/] {escape(shown)}", soft_wrap=True)
        sys.exit(1)


def _check_arguments(args: list[str]) -> None:
    """Arguments with bytes that are not UTF-8 (Python hands them over as lone surrogates) are refused."""
    for n, arg in enumerate(args, start=1):
        bad = next((ch for ch in arg if "\ud800" <= ch <= "\udfff"), None)
        if bad is not None:
            shown = arg.encode("utf-8", "backslashreplace").decode("utf-8")
            raise UserInputError(
                f"argument {n} ({shown!r}) is not valid UTF-8 text: set your terminal to UTF-8 and type it again"
            )


__all__ = ["app", "main"]
