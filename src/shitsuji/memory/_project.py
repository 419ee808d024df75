"""Which scope a coding agent works in: its project directory, mapped to a scope path.

The agent never names a scope (identity is never a tool argument). The project root is
the nearest directory at or above the working directory that holds ``.git`` (a folder,
or a file in worktrees and submodules), else the working directory itself. Its absolute
path becomes ``fs/<segment>/<segment>…``, so the scope tree mirrors the directory tree:
a project sees its own memories and, ranked lower, those its user saved on an ancestor
folder (``fs/home/u``), never a sibling project's.

Path segments that a scope cannot hold verbatim are escaped, injectively: ``%``, ``~``
and whitespace or unprintable characters (zero-width and bidi controls included) become
``%XX`` per UTF-8 byte (as in URLs); ``.``/``..`` cannot occur in a resolved path.
Over-long segments and over-deep paths fold into a short hash marked by ``~``, which
an escaped name never holds, so a crafted directory name can never take the scope of
another directory: every directory has a scope of its own.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePath
from typing import Final

from ._scopes import MAX_DEPTH, normalize_scope

ROOT: Final = "fs"
_MAX_SEGMENT: Final = 100


def project_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The nearest git root at or above ``cwd`` (default: the process's), else ``cwd`` itself."""
    start = Path(cwd if cwd is not None else os.getcwd()).expanduser().resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def project_scope(cwd: str | os.PathLike[str] | None = None) -> str:
    """The scope of the project containing ``cwd``: ``fs/home/u/projects/app`` for ``/home/u/projects/app``."""
    return path_scope(project_root(cwd))


def path_scope(path: PurePath) -> str:
    """The scope that mirrors an absolute directory path (no git lookup)."""
    segments = [ROOT, *(_segment(part) for part in _parts(path))]
    if len(segments) > MAX_DEPTH:
        keep = MAX_DEPTH - 1
        rest = "/".join(segments[keep:])
        segments = [*segments[:keep], "~" + hashlib.sha256(rest.encode()).hexdigest()[:16]]
    return normalize_scope("/".join(segments))


def _parts(path: PurePath) -> list[str]:
    rest = list(path.parts[1:] if path.anchor else path.parts)
    drive = path.drive.rstrip(":").lower()  # "c" for C:\ on Windows, "" on POSIX
    return [drive, *rest] if drive else rest


def _escape(ch: str) -> str:
    if ch in "%~" or ch.isspace() or not ch.isprintable():  # "~" is left for the hashed forms
        return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8"))
    return ch


def _segment(name: str) -> str:
    escaped = "".join(_escape(ch) for ch in name)
    if len(escaped) <= _MAX_SEGMENT:
        return escaped
    digest = hashlib.sha256(escaped.encode()).hexdigest()[:16]
    return f"{escaped[: _MAX_SEGMENT - 17]}~{digest}"
