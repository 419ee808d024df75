"""``shitsuji serve``: the household butler's web app (FastAPI + uvicorn).

With ``--workers N`` (PostgreSQL only) uvicorn runs N app processes on one port; each builds
its own app from the same settings, handed down in the environment (``worker_app``). They
share nothing but the database: sessions, turn claims, cards and the sign-in limit live
there, and live updates reach every process's streams by LISTEN/NOTIFY. The LINE worker
process is still started once, by the parent.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import UserInputError
from ._app import STATE, app, console

if TYPE_CHECKING:
    from fastapi import FastAPI

STOP_GRACE_S = 1.0


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


_SECURE_COOKIES = "SHITSUJI_SERVE_SECURE_COOKIES"  # parent → app processes: "on", "off" or unset


def proxy_options(proxy_headers: bool, trusted_proxy: str) -> dict[str, Any]:
    """uvicorn's settings for forwarded headers: honoured only from ``trusted_proxy``, never from anyone else.

    uvicorn then puts the forwarded client address in ``request.client``, which is what the
    sign-in rate limit keys on; a peer that is not the proxy keeps its own address whatever
    ``X-Forwarded-For`` it sends.
    """
    if not proxy_headers:
        return {"proxy_headers": False}
    proxies = [p.strip() for p in trusted_proxy.split(",") if p.strip()]
    if not proxies or "*" in proxies:
        raise UserInputError("--trusted-proxy needs the proxy's address (e.g. 127.0.0.1), not '*' or nothing")
    return {"proxy_headers": True, "forwarded_allow_ips": proxies}


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    secure_cookies: Annotated[
        bool | None,
        typer.Option(
            "--secure-cookies/--no-secure-cookies",
            help="Force the Secure cookie flag on or off (default: on for https requests).",
        ),
    ] = None,
    proxy_headers: Annotated[
        bool,
        typer.Option("--proxy-headers", help="Trust X-Forwarded-* from the reverse proxy (--trusted-proxy)."),
    ] = False,
    trusted_proxy: Annotated[
        str,
        typer.Option(
            "--trusted-proxy",
            help="With --proxy-headers: the proxy's address (comma-separated for several); "
            "X-Forwarded-For from any other peer is ignored.",
        ),
    ] = "127.0.0.1",
    worker: Annotated[
        bool,
        typer.Option(
            "--worker/--no-worker",
            help="Answer LINE events in a `shitsuji worker` process and send reminders in a `shitsuji remind run` "
            "process that serve starts and stops (default), or leave them to workers you run yourself.",
        ),
    ] = True,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            help="App processes sharing the port (PostgreSQL only: --database-url). "
            "The LINE worker process is still one.",
        ),
    ] = 1,
    log_format: Annotated[
        LogFormat,
        typer.Option(
            "--log-format",
            help="How the request log and other log lines are written to stderr: text, or one JSON object a line.",
        ),
    ] = LogFormat.TEXT,
) -> None:
    """Serve the web app: chat with confirmation cards, panels, memories, proposals; the LINE webhook;
    /metrics (Prometheus) and a request log."""
    import uvicorn

    from ..web._access import configure_logging

    proxy = proxy_options(proxy_headers, trusted_proxy)
    configure_logging("json" if log_format is LogFormat.JSON else "text")

    from ..web import Backend, create_app

    settings = STATE.settings()
    if workers > 1 and settings.database_url is None:
        raise UserInputError(
            f"--workers {workers} needs PostgreSQL (--database-url / SHITSUJI_DATABASE_URL): over one "
            "SQLite file every process's writes queue on one lock and live updates are polled. "
            "Serve with one process, or copy the database with `shitsuji migrate --to postgresql://…`"
        )
    backend = Backend(STATE.butler(need_model=False, panels=True))
    backend.reminders.budget = STATE.settings().budget()
    if workers == 1:
        _build_graphs(backend)
        backend.butler.memory.index_in_background()
    line = None
    child = None
    # reminders and digests: a `shitsuji remind run` process beside the server (web notifications
    # even without LINE); several may run, the scheduler's claims keep each delivery once
    scheduler = _start_worker("remind", "run") if worker else None
    if settings.line is not None:
        from ..line import LineApp

        line = LineApp(backend.butler, settings.line, run_worker=False)
        child = _start_worker() if worker else None
        where = "by a worker process beside this one" if worker else "by `shitsuji worker`"
        console.print(f"LINE webhook at /line/webhook; events answered {where}")
    homes = backend.store.households()
    if not homes:
        console.print(
            f"[yellow]no household yet:[/] open http://{host}:{port}/setup to create one, or run "
            "`shitsuji household init --name NAME --member YOU` and `shitsuji household set-password YOU`"
        )
    elif not any(backend.accounts.has_password(h.name, m) for h in homes for m in h.members):
        console.print("[yellow]nobody can sign in yet:[/] run `shitsuji household set-password YOUR_ID`")
    if backend.model_problem:
        console.print(f"[yellow]chat is off:[/] {backend.model_problem}")
        if STATE.settings().endpoint.openai_url is None:
            from ..llm import probe_local

            backend.local_model = probe_local()  # loopback only, 0.3 s at most
        if backend.local_model:
            console.print(
                f"an OpenAI-compatible server answers at {backend.local_model.url}: to use it, run\n"
                f"  {backend.local_model.hint}"
            )
    several = f" by {workers} processes" if workers > 1 else ""
    console.print(f"shitsuji is serving at http://{host}:{port}{several}  (Ctrl-C stops)")
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        **proxy,
        "log_config": None,  # configure_logging's handlers (--log-format)
        "access_log": False,  # the app logs each request itself, without its query string
        "timeout_graceful_shutdown": STOP_GRACE_S,  # open event streams never end by themselves
    }
    try:
        if workers == 1:
            served = create_app(backend, secure_cookies=secure_cookies, line=line)
            # everything loaded so far lives as long as the process: out of the collector's sight, a full
            # collection no longer walks it (a pause on the event loop), nor does the one at exit (it
            # took most of the 4-14 s Ctrl-C needed)
            gc.freeze()
            uvicorn.run(served, **options)
        else:
            backend.close()  # each app process opens its own
            if line is not None:
                line.close()
            _hand_down(secure_cookies)
            uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, **options)
    finally:
        for process in (child, scheduler):
            if process is not None:
                _stop_worker(process)


def _build_graphs(backend: Any) -> None:
    """A server is the long-lived process a pending vector graph (PostgreSQL) waits for: start its build
    now, in the background (opening a store starts none — ``memory._pg_graph_builds``), and keep looking
    for upkeep that becomes due while it runs (term counts to fold, scattered scopes to gather: once a
    minute, one statement). Several app processes each ask; one builds at a time, the others find it built."""
    store = backend.butler.memory.store
    if hasattr(store, "build_graphs"):  # SQLite has no graph
        store.build_graphs()
        store.watch_upkeep()


def _hand_down(secure_cookies: bool | None) -> None:
    """Put this command's settings in the environment the app processes start with."""
    if STATE.db is not None:
        os.environ["SHITSUJI_DB"] = str(STATE.db)
    if STATE.database_url is not None:
        os.environ["SHITSUJI_DATABASE_URL"] = STATE.database_url
    if STATE.embedder is not None:
        os.environ["SHITSUJI_EMBEDDER"] = STATE.embedder
    if secure_cookies is not None:
        os.environ[_SECURE_COOKIES] = "on" if secure_cookies else "off"


def worker_app() -> FastAPI:
    """One of ``serve --workers N``'s app processes: the app over the settings handed down (uvicorn
    calls this in each process). Its LINE webhook stores events; the parent's worker answers them."""
    from ..web import Backend, create_app

    settings = STATE.settings()
    backend = Backend(STATE.butler(need_model=False, panels=True))
    backend.reminders.budget = STATE.settings().budget()
    _build_graphs(backend)
    backend.butler.memory.index_in_background()
    line = None
    if settings.line is not None:
        from ..line import LineApp

        line = LineApp(backend.butler, settings.line, run_worker=False)
    secure = {"on": True, "off": False}.get(os.environ.get(_SECURE_COOKIES, ""))
    served = create_app(backend, secure_cookies=secure, line=line)
    gc.freeze()  # as in `serve`: what start-up loaded stays, out of the collector's sight
    return served


def _start_worker(*what: str) -> subprocess.Popen[bytes]:
    """``shitsuji worker`` (or the command ``what`` names) beside the server, with the same settings: a turn
    then never shares this process's interpreter with the webhook, whose answer LINE waits for (bench line:
    p99 132 ms → 12–45 ms)."""
    command = [sys.executable, "-m", "shitsuji"]
    if STATE.db is not None:
        command += ["--db", str(STATE.db)]
    if STATE.database_url is not None:
        command += ["--database-url", STATE.database_url]
    if STATE.embedder is not None:
        command += ["--embedder", STATE.embedder]
    linux = sys.platform.startswith("linux")
    return subprocess.Popen(
        [*command, *(what or ("worker",))], preexec_fn=_die_with_parent if linux else None
    )


def _die_with_parent() -> None:
    """In the child, before it runs: SIGTERM when serve ends however it ends (uvicorn re-raises a SIGTERM
    after its graceful shutdown, so serve's own clean-up never runs then; kill -9 neither)."""
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGTERM))


def _stop_worker(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM: the worker finishes the answers under way (or keeps them to answer after a restart), then
    stops; killed if it is not gone in ``STOP_GRACE_S`` (serve stops within 2 s of Ctrl-C)."""
    child.terminate()
    try:
        child.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
