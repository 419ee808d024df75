"""The prompt hook's client path: its arguments, the server's socket, one request and one answer.

A coding agent starts a fresh process for every prompt, and a hook server answers it in
about 20 ms of CPU; what the process imports on the way costs more than that. This module
imports only what Python has loaded before any of our code (``os``, ``sys``) and two C
modules: ``_socket`` rather than ``socket`` (which loads ``enum`` and ``selectors``), and
``_json``'s codecs rather than ``json`` (which loads ``re``). No ``argparse``, ``pathlib`` or
``typing``: paths are strings, the few arguments are read by hand, and anything they do not
cover (``--help``, ``serve``, a value that is not a plain number) goes to the full command
line (``__main__``), which gives argparse's own messages. Measured: docs/benchmarks.md.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing's own constant costs an import of typing; mypy reads this name alike
if TYPE_CHECKING:
    import _socket
    from typing import Any, Final

PROTOCOL: Final = 1
ASK_TIMEOUT: Final = 5.0  # a server that takes longer is skipped, and the hook answers itself
MAX_MESSAGE: Final = 1 << 20  # bytes of one request or answer
OFF_VALUES: Final = frozenset({"0", "off", "no", "false"})
SOCKET_PATH_MAX: Final = 100  # AF_UNIX paths are limited to ~104-108 bytes
DEFAULT_K: Final = 5  # the same as _context's (a test keeps them equal); not imported: it loads numpy
DEFAULT_BUDGET: Final = 2000

_NUMBERS = {"-k": "k", "--k": "k", "--budget": "budget"}


class PromptArgs:
    """``prompt``'s arguments, as argparse would give them (``db`` a string, not a ``Path``)."""

    __slots__ = ("budget", "db", "k", "plain", "server")

    def __init__(
        self,
        db: str | None = None,
        k: int = DEFAULT_K,
        budget: int = DEFAULT_BUDGET,
        plain: bool = False,
        server: bool = True,
    ) -> None:
        self.db, self.k, self.budget, self.plain, self.server = db, k, budget, plain, server


def parse_prompt(argv: list[str]) -> PromptArgs | None:
    """``prompt``'s arguments read by hand; None for anything else (argparse then parses, or says why not).

    Only the spellings ``install-hooks`` and the README use are read here: ``--db PATH`` or
    ``--db=PATH``, ``-k N``, ``--k N``, ``--budget N`` (each ``=`` form too), ``--plain``,
    ``--no-server``; an empty value or one starting with ``-`` is left to argparse.
    """
    if not argv or argv[0] != "prompt":
        return None
    args = PromptArgs()
    rest = iter(argv[1:])
    for word in rest:
        if word == "--plain":
            args.plain = True
            continue
        if word == "--no-server":
            args.server = False
            continue
        name, equals, value = word.partition("=")
        if not equals:
            value = next(rest, "")
        if not value or value.startswith("-"):
            return None
        if name == "--db":
            args.db = value
        elif name in _NUMBERS and _plain_number(value):
            setattr(args, _NUMBERS[name], int(value))
        else:
            return None
    return args


def _plain_number(value: str) -> bool:
    """A value ``int`` reads as argparse's ``type=int`` would (digits, spaces, one ``+``)."""
    digits = value.strip()
    return digits.removeprefix("+").isdecimal()


def server_enabled(flag: bool, environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """The server is used unless ``--no-server`` or ``SHITSUJI_HOOK_SERVER=off`` (or off POSIX systems:
    it needs unix sockets and file locks)."""
    env = os.environ if environ is None else environ
    off = env.get("SHITSUJI_HOOK_SERVER", "").strip().lower() in OFF_VALUES
    return flag and not off and os.name == "posix"


def locations(db: str | None) -> tuple[str, str | None, str]:
    """Database, embedder name and cache folder as ``Settings`` resolves them, without importing it
    (``_paths``: ``platformdirs`` only where its rule is not the plain Linux one)."""
    from .._paths import default_cache_folder, default_data_folder

    path = db or os.environ.get("SHITSUJI_DB") or os.path.join(default_data_folder(), "shitsuji.db")
    cache = os.environ.get("SHITSUJI_CACHE_DIR") or default_cache_folder()
    return os.path.expanduser(path), os.environ.get("SHITSUJI_EMBEDDER") or None, os.path.expanduser(cache)


def socket_file(db: str, embedder: str | None, cache_dir: str) -> str | None:
    """The socket of the server for ``db`` and ``embedder``; None when the path would be too long.

    The name is a hash of the database's real path, the embedder, the shitsuji version and
    the interpreter, so another project's database or an upgraded install never talks to a
    stale server.
    """
    from .. import __version__

    # "use" is memory's DEFAULT_EMBEDDER (not imported here: it loads numpy; a test keeps them equal)
    real = os.path.realpath(os.path.expanduser(db))
    key = "\0".join([real, embedder or "use", __version__, sys.executable])
    path = os.path.join(cache_dir, f"hook-{_sha256_hex(key.encode())[:16]}.sock")
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def _sha256_hex(data: bytes) -> str:
    """SHA-256 without ``hashlib``: importing it loads OpenSSL and blake2 first, which cost more CPU than
    anything else the hook process does before it asks the server (measured: docs/benchmarks.md).
    CPython's own SHA-256 module gives the same digest; ``hashlib`` where it is missing."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    return str(sha256(data).hexdigest())


def prompt_request(payload: str, cwd: str, args: PromptArgs) -> bytes:
    """The request line, byte for byte what ``json.dumps`` makes of it (a test holds them equal)."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:  # not CPython
        from json.encoder import py_encode_basestring_ascii as quote
    plain = "true" if args.plain else "false"
    text = (
        f'{{"v": {PROTOCOL}, "payload": {quote(payload)}, "cwd": {quote(cwd)}, '
        f'"k": {int(args.k)}, "budget": {int(args.budget)}, "plain": {plain}}}'
    )
    return text.encode() + b"\n"


def ask_line(path: str, line: bytes, timeout: float = ASK_TIMEOUT) -> bytes | None:
    """The server's answer line to ``line``; None when no server answers (then the hook works alone)."""
    import _socket

    try:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        conn.settimeout(timeout)
        conn.connect(path)
        conn.sendall(line)
        return read_line(conn) or None
    except OSError:  # no socket, nobody listening, timed out, reset
        return None
    finally:
        conn.close()


def read_line(conn: _socket.socket) -> bytes:
    """One newline-terminated message (without the newline); b"" when the peer closed first."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        end = chunk.find(b"\n")
        if end >= 0:
            parts.append(chunk[:end])
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_MESSAGE:
            raise OSError("message too long")


def parse_answer(line: bytes) -> dict[str, Any] | None:
    """The server's answer as a dict; None when it is not a JSON object (what ``json.loads`` refuses)."""
    try:
        found = _loads(line.decode())
    except (ValueError, StopIteration):  # not UTF-8, not JSON, or more after the value
        return None
    return found if isinstance(found, dict) else None


_SPACE = " \t\n\r"  # JSON's white space


def _loads(text: str) -> object:
    """``json.loads`` by ``_json``'s C scanner alone (``json`` itself loads ``re``)."""
    try:
        from _json import make_scanner
    except ImportError:  # not CPython
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_SPACE))
    found, end = make_scanner(_Context())(text, start)  # type: ignore[arg-type]  # reads these attributes
    if text[end:].strip(_SPACE):
        raise ValueError("extra data after the JSON value")
    return found


class _Context:
    """What ``_json``'s scanner reads from a decoder: ``json.JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
