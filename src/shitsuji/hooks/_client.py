"""The hook's side of the hook server: find it, ask it, start it. Standard library only.

A coding agent starts a fresh hook process for every prompt. Most of that process's time
went on importing numpy and the memory engine and mapping the model and vectors, before
one millisecond of search. A hook server (``_server``) keeps all of that loaded; the hook
process then only starts Python, sends the payload over a unix socket and prints the
answer. When no server answers, the hook does the work itself as before and starts one
for the next prompt; it exits after ``IDLE_TIMEOUT`` seconds without a prompt.

One server serves one database and embedder (and one shitsuji version and interpreter):
the socket's name is a hash of those, in the cache folder, so another project's database
or an upgraded install never talks to a stale server.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any, Final

from ._quick import ASK_TIMEOUT, PROTOCOL, read_line, server_enabled, socket_file

__all__ = [
    "ASK_TIMEOUT",
    "IDLE_TIMEOUT",
    "PROTOCOL",
    "ask",
    "hold_lock",
    "lock_path",
    "read_line",
    "server_answer",
    "server_enabled",
    "socket_path",
    "start_server",
]

IDLE_TIMEOUT: Final = 1800.0  # seconds without a prompt before a server exits


def socket_path(db: Path, embedder: str | None, cache_dir: Path) -> Path | None:
    """The socket of the server for ``db`` and ``embedder``; None when the path would be too long
    (``_quick.socket_file``, which the prompt hook's client path calls with strings)."""
    found = socket_file(os.fspath(db), embedder, os.fspath(cache_dir))
    return None if found is None else Path(found)


def ask(path: Path, request: dict[str, Any], timeout: float = ASK_TIMEOUT) -> dict[str, Any] | None:
    """The server's answer to ``request``, or None when no server answers (then the hook works alone)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(os.fspath(path))
            conn.sendall(json.dumps({"v": PROTOCOL, **request}).encode() + b"\n")
            reply = read_line(conn)
    except OSError:  # no socket, nobody listening, timed out, reset
        return None
    try:
        answer = json.loads(reply) if reply else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def server_answer(path: Path | None, payload: str, *, k: int, budget: int, plain: bool) -> str | None:
    """What the hook prints, as the server at ``path`` answers it; None when no server answers.

    A payload the server refuses (not JSON, no prompt) raises ``UserInputError``, as the
    hook alone would.
    """
    if path is None:
        return None
    answer = ask(path, {"payload": payload, "cwd": os.getcwd(), "k": k, "budget": budget, "plain": plain})
    if answer is None:
        return None
    if "error" in answer:
        from ..errors import UserInputError

        raise UserInputError(str(answer["error"]))
    return str(answer.get("out", ""))


def lock_path(path: Path) -> Path:
    """The server's lock file beside its socket; it holds the server's process id."""
    return path.with_name(path.name + ".lock")


def hold_lock(path: Path, *, mine: bool = False) -> int | None:
    """Take the server lock of the socket at ``path`` (a file descriptor to keep open), or None when
    held; ``mine``: this process is the server, and writes its id into the file."""
    import fcntl

    path.parent.mkdir(
        mode=0o700, parents=True, exist_ok=True
    )  # the user's own (no imports: the hook starts fast)
    fd = os.open(lock_path(path), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    if mine:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def start_server(path: Path, db: Path, embedder: str | None, idle_timeout: float = IDLE_TIMEOUT) -> bool:
    """Start a hook server for ``db`` in the background, detached from this process and its terminal;
    False when one already holds the socket's lock (it is still loading, or busy).

    The server binds its socket only once its model and vectors are loaded, and holds the
    lock for its life; a second server for the same socket sees the lock and exits, so
    racing hooks start one server.
    """
    fd = hold_lock(path)
    if fd is None:
        return False
    os.close(fd)  # free again for the server (a race with another hook is settled there)
    import subprocess  # here, not at the top: a prompt the server answers never starts one

    command = [sys.executable, "-m", "shitsuji.hooks", "serve", "--db", os.fspath(db)]
    command += ["--idle-timeout", f"{idle_timeout:g}"]
    if embedder:
        command += ["--embedder", embedder]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    return True
