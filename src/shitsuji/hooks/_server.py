"""The hook server: one resident process that answers prompt hooks over a unix socket.

It opens the memory engine once — model, vector index, chatter vectors, and the second
model that re-scores the candidates when it is installed (``_second``) — and answers each
``{"payload", "k", "budget", "plain"}`` line with ``{"out"}`` (what the hook prints) or
``{"error"}`` (a bad payload: the hook prints it and exits 1, as it would alone);
``{"status": true}`` gets ``{"status": {…}}`` (what it holds, what is left to embed). The
database is read afresh for every prompt (the store picks up rows other processes wrote),
so memories saved meanwhile are found. At its start it also embeds, on a thread of its own,
the memories left without a vector of its model (``MemoryEngine.index_in_background``, as
``shitsuji serve`` does): the hook searches by meaning, and where only the hook runs nothing
else would embed them.

Start-up order matters: the socket is bound only after everything is loaded, so a hook
never waits on a server that is still loading (it answers alone meanwhile). A lock file
beside the socket is held for the server's life (taken by its caller before anything
loads): of two servers started at once for the same socket, the second leaves at once. It exits after ``idle_timeout`` seconds
without a prompt, on SIGTERM or SIGINT, or when its database is gone or replaced, removing its socket.

A replaced database (restored from a backup, recreated after ``rm``) is a new file at the
same path: the server's open connection still reads the old one, so the server compares the
file's identity (device and inode) with the one it opened, every few seconds and before
each prompt, and leaves when they differ; the prompt that noticed is not answered, so its
hook answers alone from the new file and starts a new server. Leaving is simpler than
reopening, and as fast for the user: the next server loads in the background.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import time
from datetime import UTC, tzinfo
from pathlib import Path
from types import FrameType
from typing import Any

from .._heap import settle_heap
from ..errors import ShitsujiError
from ..memory import MemoryEngine
from ._client import PROTOCOL, read_line
from ._payload import parse_payload
from ._prompt import answer_event, check_limits
from ._second import SecondOpinion

log = logging.getLogger(__name__)

READ_TIMEOUT = 2.0  # seconds a connected hook has to send its request
CHECK_EVERY = 2.0  # seconds between two looks at the database file while idle


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def warm_up(engine: MemoryEngine, second: SecondOpinion | None) -> None:
    """One prompt through the hook (the model, the chatter vectors), then the second model started on
    every memory: the server's start-up, and ``bench hook-relevance``'s, so the thresholds are
    calibrated on the centring the server uses.

    The first model's memory means (``SecondOpinion.start``) are taken from the vectors this process
    has loaded, and the warm-up prompt searches the scope ``fs``, where no project's memories sit:
    they are the reference bank's alone, in the server as in the bench (hk26 checked: every centred
    cosine of the three labelled sets is the same whether a project scope was searched first or not).
    """
    from ._context import relevant_hits

    relevant_hits(engine, "warm up", "fs")
    if second is not None:
        model = engine.embedder.model_id
        memories = [(m.id, m.content) for m in engine.list_memories()]
        second.start(memories, engine.embedder, lambda ids: engine.store.vectors_of(model, ids))


class HookServer:
    """Answers prompt hooks from ``engine`` on the unix socket at ``path`` (see the module doc)."""

    def __init__(
        self,
        engine: MemoryEngine,
        db: Path,
        path: Path,
        *,
        idle_timeout: float,
        second: SecondOpinion | None = None,
        identity: tuple[int, int] | None = None,
        zone: tzinfo = UTC,
    ) -> None:
        self.engine = engine
        self.zone = zone  # the user's, read once at start-up (``Settings.time_zone``)
        self.second = second
        self.db = db
        self.path = path
        self.idle_timeout = idle_timeout
        self.answered = 0
        # the file the engine opened (see the module doc), taken before opening it when given
        self.identity = identity or file_identity(db)

    def warm_up(self) -> None:
        """Load the model, the vector index and the chatter vectors before the first prompt, set the
        second model embedding the memories in the background (``warm_up``), and embed the facts left
        without a vector of this model — a failed embed, a keyed fact a migration marked — in another
        thread (``MemoryEngine.index_in_background``, as ``shitsuji serve`` does; never over another
        model's vectors): where only the hook server runs, nothing else would, and the hook searches
        by meaning alone."""
        warm_up(self.engine, self.second)
        self.engine.index_in_background()

    def same_database(self) -> bool:
        """The database file is still the one the engine opened (not deleted, not replaced)."""
        return self.identity is not None and file_identity(self.db) == self.identity

    def serve(self, listener: socket.socket) -> None:
        """Answer connections one at a time until idle for ``idle_timeout`` s or the database is gone
        or replaced (a prompt that arrives then is left unanswered: its hook answers alone)."""
        last = time.monotonic()
        while self.same_database():
            remaining = self.idle_timeout - (time.monotonic() - last)
            if remaining <= 0:
                return
            listener.settimeout(min(remaining, CHECK_EVERY))  # wake now and then to see the database
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                if not self.same_database():
                    log.info("the database at %s was deleted or replaced: leaving", self.db)
                    return
                self._handle(conn)
            last = time.monotonic()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(READ_TIMEOUT)
        try:
            line = read_line(conn)
            reply = self.answer(line)
            conn.sendall(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
        except OSError as exc:  # the hook went away or was too slow: it answers alone
            log.info("hook connection dropped: %s", exc)

    def status(self) -> dict[str, Any]:
        """What the server holds: prompts answered, the second model and its passages still to embed."""
        second = self.second
        return {
            "pid": os.getpid(),
            "answered": self.answered,
            "model": self.engine.embedder.model_id,
            "second_model": second.model_id if second else None,
            "second_pending": second.pending() if second else 0,
        }

    def answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
        except ValueError:
            return {"error": "the hook server got a request that is not JSON"}
        if not isinstance(request, dict) or request.get("v") != PROTOCOL:
            return {"error": f"the hook server speaks protocol {PROTOCOL}; upgrade or restart the hook"}
        if request.get("status"):
            return {"status": self.status()}
        try:
            k, budget = int(request.get("k", 5)), int(request.get("budget", 2000))
            check_limits(k, budget)
            cwd = request.get("cwd")
            event = parse_payload(str(request.get("payload", "")), cwd if isinstance(cwd, str) else None)
            plain = bool(request.get("plain"))
            out = answer_event(
                self.engine, event, k=k, budget=budget, plain=plain, second=self.second, zone=self.zone
            )
        except ShitsujiError as exc:
            return {"error": str(exc)}
        except (TypeError, ValueError) as exc:
            return {"error": f"bad hook request: {exc}"}
        self.answered += 1
        return {"out": out}


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def run_server(
    engine: MemoryEngine,
    db: Path,
    path: Path,
    *,
    idle_timeout: float,
    second: SecondOpinion | None = None,
    identity: tuple[int, int] | None = None,
    zone: tzinfo = UTC,
) -> int:
    """Load, bind, serve, remove the socket. The caller holds the socket's lock (``_client.hold_lock``);
    ``identity``: the database file's, taken before the engine opened it; ``zone``: the user's."""
    signal.signal(signal.SIGTERM, _stop)
    server = HookServer(
        engine, db, path, idle_timeout=idle_timeout, second=second, identity=identity, zone=zone
    )
    server.warm_up()
    settle_heap()  # a full collection over the loaded model and indexes would slow a prompt (``_heap``)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a socket left by a server that died; we hold the lock
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)  # the socket is the user's own: 0600
        try:
            listener.bind(os.fspath(path))
        finally:
            os.umask(old)
        listener.listen(16)
        server.serve(listener)
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        if second is not None:
            second.stop()  # saves its passage vectors for the next server
    return 0
