"""Count the statements that reach the database engine: what a chat turn really costs in round trips.

Counted where they are sent, not where our code asks for them, so nothing of ours is wrapped:

- **SQLite**: the connection's own trace callback (``sqlite3.Connection.set_trace_callback``)
  reports every statement SQLite runs, ``BEGIN`` and ``COMMIT`` included;
- **PostgreSQL**: a pass-through proxy on a Unix socket between the process's pool and the
  server reads the frontend protocol as it goes by and counts each ``Query`` (simple protocol)
  and ``Execute`` (extended protocol) message — what psycopg, libpq and the pool really send,
  transaction control included. Each is recorded with its SQL text (from the ``Parse`` of its
  prepared statement) and its parameters as sent, so a test can say which read came twice.

``counting(target)`` yields the target to open (the same SQLite path, or the proxy's URL) and the
``Statements`` seen; ``statements.mark()`` starts a new window (after the set-up of a test).
"""

from __future__ import annotations

import contextlib
import re
import socket
import sqlite3
import struct
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from ..store import Database, is_postgres

__all__ = ["Sent", "Statements", "counting", "watch"]

_WRITES = re.compile(r"\b(INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b")
_SPECIAL_REQUESTS = {80877102, 80877103, 80877104}  # cancel, SSL, GSS encryption: not a session start


@dataclass(frozen=True, slots=True)
class Sent:
    """One statement as the engine received it (parameters as sent: bytes on PostgreSQL, None on SQLite)."""

    sql: str
    params: tuple[bytes | None, ...] | None = None

    @property
    def reads(self) -> bool:
        """A ``SELECT``, or a ``WITH`` none of whose parts writes (``WITH w0 AS (INSERT …) …`` is a write)."""
        sql = self.sql.lstrip().upper()
        return sql.startswith("SELECT") or (sql.startswith("WITH") and not _WRITES.search(sql))


@dataclass
class Statements:
    """The statements seen since the last ``mark`` (thread-safe: the pool's connections report here)."""

    seen: list[Sent] = field(default_factory=list)
    # PostgreSQL: the round trips — a ``Query``, or a ``Sync`` ending extended-protocol messages
    synced: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, sent: Sent) -> None:
        with self._lock:
            self.seen.append(sent)

    def sync(self) -> None:
        with self._lock:
            self.synced += 1

    def mark(self) -> None:
        with self._lock:
            self.seen.clear()
            self.synced = 0

    @property
    def round_trips(self) -> int:
        """PostgreSQL: the round trips since the last ``mark`` (statements sent together in psycopg's
        pipeline mode share one Sync, so one trip)."""
        with self._lock:
            return self.synced

    def snapshot(self) -> list[Sent]:
        with self._lock:
            return list(self.seen)

    def __len__(self) -> int:
        with self._lock:
            return len(self.seen)

    def repeated_reads(self) -> list[Sent]:
        """Reads sent more than once with the same parameters (each listed once)."""
        seen: set[Sent] = set()
        again: list[Sent] = []
        for sent in self.snapshot():
            if sent.reads and sent in seen and sent not in again:
                again.append(sent)
            seen.add(sent)
        return again

    def report(self) -> str:
        return "\n".join(f"{i + 1:3}. {s.sql.strip()[:160]}" for i, s in enumerate(self.snapshot()))


# -- SQLite ----------------------------------------------------------------------------------------


def watch(database: Database, statements: Statements) -> None:
    """Count what a SQLite database's connection runs (PostgreSQL is counted by ``counting``'s proxy)."""
    conn = getattr(database, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        raise TypeError("watch() counts a SQLite database; open PostgreSQL through counting()'s URL")

    def trace(sql: str) -> None:
        if not sql.startswith("--"):  # a trigger's statements come as comments: part of their statement
            statements.add(Sent(sql))

    conn.set_trace_callback(trace)


# -- PostgreSQL ------------------------------------------------------------------------------------


def _cstring(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", "replace"), end + 1


class _Session:
    """One client connection's frontend messages, parsed as they are forwarded."""

    def __init__(self, statements: Statements) -> None:
        self.statements = statements
        self.prepared: dict[str, str] = {}
        self.bound: tuple[str, tuple[bytes | None, ...]] = ("", ())

    def message(self, kind: bytes, body: bytes) -> None:
        if kind == b"Q":
            self.statements.add(Sent(_cstring(body, 0)[0]))
            self.statements.sync()
        elif kind == b"S":
            self.statements.sync()
        elif kind == b"P":
            name, at = _cstring(body, 0)
            self.prepared[name] = _cstring(body, at)[0]
        elif kind == b"B":
            self.bound = self._bind(body)
        elif kind == b"E":
            self.statements.add(Sent(*self.bound))

    def _bind(self, body: bytes) -> tuple[str, tuple[bytes | None, ...]]:
        _portal, at = _cstring(body, 0)
        name, at = _cstring(body, at)
        (formats,) = struct.unpack_from("!h", body, at)
        at += 2 + 2 * formats
        (count,) = struct.unpack_from("!h", body, at)
        at += 2
        params: list[bytes | None] = []
        for _ in range(count):
            (size,) = struct.unpack_from("!i", body, at)
            at += 4
            params.append(None if size < 0 else body[at : at + size])
            at += max(size, 0)
        return self.prepared.get(name, "?"), tuple(params)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _client_to_server(client: socket.socket, server: socket.socket, session: _Session) -> None:
    with contextlib.suppress(OSError, ConnectionError):
        while True:  # start-up: untyped messages until the session's own start (SSL/GSS asked first)
            head = _recv_exact(client, 8)
            size, code = struct.unpack("!ii", head)
            server.sendall(head + _recv_exact(client, size - 8))
            if code not in _SPECIAL_REQUESTS:
                break
        while True:
            head = _recv_exact(client, 5)
            body = _recv_exact(client, struct.unpack("!i", head[1:])[0] - 4)
            session.message(head[:1], body)
            server.sendall(head + body)
    for sock in (server, client):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _server_to_client(server: socket.socket, client: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while chunk := server.recv(65536):
            client.sendall(chunk)
    for sock in (client, server):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class _Proxy:
    """A Unix-socket listener that forwards each connection to the real server and counts as it goes."""

    def __init__(self, url: str, statements: Statements, folder: Path) -> None:
        from psycopg.conninfo import conninfo_to_dict

        info: dict[str, Any] = conninfo_to_dict(url)
        host, port = str(info.get("host") or "/tmp"), int(info.get("port") or 5432)
        self.upstream: tuple[int, Any] = (
            (socket.AF_UNIX, f"{host}/.s.PGSQL.{port}")
            if host.startswith("/")
            else (socket.AF_INET, (host, port))
        )
        self.statements = statements
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(folder / ".s.PGSQL.5432"))
        self.listener.listen(64)
        self.sockets: list[socket.socket] = [self.listener]
        self.url = _with_host(url, str(folder))
        threading.Thread(target=self._accept, daemon=True, name="statement-proxy").start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                family, address = self.upstream
                server = socket.socket(family, socket.SOCK_STREAM)
                server.connect(address)
                self.sockets += [client, server]
                session = _Session(self.statements)
                threading.Thread(
                    target=_client_to_server, args=(client, server, session), daemon=True
                ).start()
                threading.Thread(target=_server_to_client, args=(server, client), daemon=True).start()

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _with_host(url: str, folder: str) -> str:
    """``url`` pointed at the Unix socket in ``folder`` (user, password, database and options kept)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("host", "port")]
    user = quote(parts.username or "", safe="")
    auth = user + (f":{quote(parts.password, safe='')}" if parts.password else "")
    return f"postgresql://{auth}{'@' if auth else ''}{parts.path}?{urlencode([*query, ('host', folder)])}"


@contextlib.contextmanager
def counting(target: str) -> Iterator[tuple[str, Statements]]:
    """``(target to open, statements seen)``: a SQLite path as it is (``watch`` its databases), a
    PostgreSQL URL through a counting proxy (open the returned URL; its pool is counted whole)."""
    statements = Statements()
    if not is_postgres(target):
        yield target, statements
        return
    with tempfile.TemporaryDirectory(prefix="shitsuji-count-") as folder:
        proxy = _Proxy(target, statements, Path(folder))
        try:
            yield proxy.url, statements
        finally:
            proxy.close()
