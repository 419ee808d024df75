"""The ``shitsuji`` command line. ``main`` turns every failure into one line on stderr, ``error: …``,
and a documented exit code: 0 done, 1 an error (shitsuji's own, or a refusal such as a card already
decided), 2 a command line that could not be understood (unknown command, missing option)."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.markup import escape

from ..errors import ShitsujiError, UserInputError
from . import (  # noqa: F401  (they register commands)
    _anniversary,
    _audit,
    _backup,
    _bench,
    _bench_time,
    _chat,
    _demo,
    _doctor,
    _hooks,
    _household,
    _line,
    _mcp,
    _memory,
    _migrate,
    _remind,
    _serve,
    _transfer,
)
from ._app import app, err_console

EXIT_ERROR = 1
EXIT_USAGE = 2

# click's error classes, from whichever click typer runs on (its own copy in newer releases)
_CLICK_ERRORS = {c.__name__: c for c in typer.BadParameter.__mro__}
_UsageError: type[Exception] = _CLICK_ERRORS["UsageError"]
_ClickException: type[Exception] = _CLICK_ERRORS["ClickException"]


def main() -> None:
    try:
        _check_arguments(sys.argv[1:])
        code = app(prog_name="shitsuji", standalone_mode=False)
    except ShitsujiError as exc:
        _fail(str(exc), EXIT_ERROR)
    except typer.Abort:
        _fail("stopped: nothing more was done", EXIT_ERROR)
    except _UsageError as exc:
        ctx: Any = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:  # `shitsuji household`
            sys.stdout.write(ctx.get_help() + "\n")
            sys.exit(EXIT_USAGE)
        where = ctx.command_path if ctx is not None else "shitsuji"
        _fail(f"{_message(exc)} (see `{where} --help`)", EXIT_USAGE)
    except _ClickException as exc:
        _fail(_message(exc), int(getattr(exc, "exit_code", EXIT_ERROR)))
    sys.exit(code if isinstance(code, int) else 0)


def _message(exc: Exception) -> str:
    format_message = getattr(exc, "format_message", None)
    return str(format_message() if callable(format_message) else exc)


def _fail(message: str, code: int) -> None:
    shown = message.encode("utf-8", "backslashreplace").decode("utf-8")  # a stray surrogate must not crash
    err_console.print(f"[red]error:[/] {escape(shown)}", soft_wrap=True)
    sys.exit(code)


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
