"""``shitsuji serve``: the household butler's web app (FastAPI + uvicorn)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import STATE, app, console


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
        bool, typer.Option("--proxy-headers", help="Trust X-Forwarded-* from a reverse proxy on loopback.")
    ] = False,
    worker: Annotated[
        bool,
        typer.Option(
            "--worker/--no-worker",
            help="Answer LINE events in this process (default), or leave them to `shitsuji worker`.",
        ),
    ] = True,
) -> None:
    """Serve the web app: chat with confirmation cards, panels, memories, proposals; the LINE webhook."""
    import uvicorn

    from ..web import Backend, create_app

    settings = STATE.settings()
    backend = Backend(STATE.butler(need_model=False, panels=True))
    line = None
    if settings.line is not None:
        from ..line import LineApp

        line = LineApp(
            backend.butler,
            settings.line,
            run_worker=worker,
            worker_butler=lambda: STATE.butler(need_model=False, own_memory=True),
        )
        where = "in this process" if worker else "by `shitsuji worker`"
        console.print(f"LINE webhook at /line/webhook; events answered {where}")
    homes = backend.store.households()
    if not homes:
        console.print(
            "[yellow]no household yet:[/] create one with "
            "`shitsuji household init --name NAME --member YOU` and `shitsuji household set-password YOU`"
        )
    elif not any(backend.accounts.has_password(h.name, m) for h in homes for m in h.members):
        console.print("[yellow]nobody can sign in yet:[/] run `shitsuji household set-password YOUR_ID`")
    if backend.model_problem:
        console.print(f"[yellow]chat is off:[/] {backend.model_problem}")
    console.print(f"shitsuji is serving at http://{host}:{port}  (Ctrl-C stops)")
    uvicorn.run(
        create_app(backend, secure_cookies=secure_cookies, line=line),
        host=host,
        port=port,
        proxy_headers=proxy_headers,
        forwarded_allow_ips="127.0.0.1" if proxy_headers else None,
        log_level="warning",
        access_log=False,
    )
