"""The FastAPI application: pages, the JSON API, static files, error answers, background work."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._heap import settle_heap
from .._offload import bound_threads, off_loop
from ..agent import Busy, ModelNotConfigured
from ..errors import ModelError, NotFoundError, ShitsujiError, UserInputError
from ._access import AccessLog
from ._api import router as api_router
from ._backend import Backend
from ._locale import said, words
from ._metrics import router as metrics_router
from ._metrics import watch
from ._nisa_cards import api as nisa_api
from ._nisa_cards import router as nisa_router
from ._pages import render_error
from ._pages import router as page_router
from ._pictures import PICTURE_BODY, PICTURE_PATH
from ._pictures import router as pictures_router
from ._recovery import api as recovery_api
from ._recovery import router as recovery_router
from ._reminders import api as reminders_api
from ._reminders import router as reminders_router
from ._security import CsrfRejected, LimitBody, NotSignedIn, RateLimited
from ._settings import api as settings_api
from ._settings import router as settings_router

if TYPE_CHECKING:
    from ..line import LineApp

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
MAX_BODY = 64 * 1024
EXTRACTION_EVERY_S = 20.0
STOP_GRACE_S = 1.0  # turns under way at shutdown may finish in this long (serve stops within 2 s)


# first match wins: subclasses before their bases (RateLimited, Busy, … are ShitsujiErrors)
_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (NotSignedIn, 401),
    (CsrfRejected, 403),
    (NotFoundError, 404),
    (Busy, 409),
    (RateLimited, 429),
    (UserInputError, 400),
    (ModelNotConfigured, 503),
    (ModelError, 502),
)


def _status(exc: Exception) -> int:
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 500)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def _validation_text(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(x) for x in error.get("loc", ()) if x != "body")
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid")))
    return "invalid request: " + "; ".join(parts)


def create_app(
    backend: Backend,
    *,
    secure_cookies: bool | None = None,
    max_body: int = MAX_BODY,
    background: bool = True,
    line: LineApp | None = None,
    extraction_every_s: float = EXTRACTION_EVERY_S,
) -> FastAPI:
    """The web app over ``backend``. ``secure_cookies`` None: Secure when the request came over https.
    ``line``: the LINE webhook at ``/line/webhook`` (and its worker, unless ``line.run_worker`` is False);
    without it the webhook answers 503 saying what to set."""
    from ..line import not_configured_router

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        bound_threads()  # blocking work (plain def routes, off_loop) queues on the worker threads
        probe.start()
        # answer at once: the embedder and indexes load behind (health says "warming_up" meanwhile)
        warming = asyncio.create_task(_warm_up(backend))
        await backend.hub.listen(backend.butler.path)  # other processes' changes (PostgreSQL)
        worker = (
            asyncio.create_task(_extraction_loop(backend, extraction_every_s))
            if background and backend.service.extraction
            else None
        )
        line_worker = line.running() if background and line is not None else contextlib.nullcontext()
        try:
            async with line_worker:
                yield
        finally:
            await _stop(app, backend, [t for t in (warming, worker) if t is not None])
            await probe.stop()

    app = FastAPI(
        title="shitsuji",
        summary="The household butler's web API (sign in first; writes need the X-CSRF-Token header).",
        version="0.1.0",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,  # served signed-in only, at /api/openapi.json
        lifespan=lifespan,
    )
    app.state.backend = backend
    app.state.secure_cookies = secure_cookies
    app.state.tasks = set()
    app.add_middleware(LimitBody, limit=max_body, larger={PICTURE_PATH: PICTURE_BODY})
    app.add_middleware(AccessLog)
    probe = watch(backend, line.inbox if line is not None else None)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(api_router)
    app.include_router(pictures_router)
    app.include_router(metrics_router)
    app.include_router(settings_api)
    app.include_router(page_router)
    app.include_router(settings_router)
    app.include_router(recovery_api)
    app.include_router(recovery_router)
    app.include_router(nisa_api)
    app.include_router(nisa_router)

    app.include_router(reminders_router)
    app.include_router(reminders_api)
    app.include_router(line.router() if line is not None else not_configured_router())

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if not request.url.path.startswith("/static/"):
            # pages and JSON carry a member's data and CSRF token (the sign-in forms their own token):
            # no browser or proxy cache keeps them; only the static files may be cached
            response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        )
        return response

    @app.exception_handler(ShitsujiError)
    async def shitsuji_error(request: Request, exc: ShitsujiError) -> Response:
        status = _status(exc)
        if status == 500:
            log.exception("unexpected error", exc_info=exc)
        if isinstance(exc, NotSignedIn) and not _wants_json(request):
            return RedirectResponse("/login", status_code=303)
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
        if _wants_json(request):
            body = {"error": str(exc)}
            shown = said(words(request), exc) if isinstance(exc, UserInputError) else str(exc)
            if shown != body["error"]:  # the refusal's own reason in the member's language too
                body["message"] = shown
            return JSONResponse(body, status_code=status, headers=headers)
        shown = said(words(request), exc) if isinstance(exc, UserInputError) else str(exc)
        return render_error(request, shown, status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        text = _validation_text(exc)
        if _wants_json(request):
            detail = [{k: v for k, v in e.items() if k not in ("input", "ctx", "url")} for e in exc.errors()]
            return JSONResponse({"error": text, "detail": jsonable(detail)}, status_code=422)
        return render_error(request, text, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        text = str(exc.detail) if exc.status_code != 404 else "not found"
        if _wants_json(request):
            return JSONResponse({"error": text}, status_code=exc.status_code, headers=exc.headers)
        return render_error(request, text, exc.status_code)

    return app


def jsonable(errors: Any) -> Any:
    from fastapi.encoders import jsonable_encoder

    return jsonable_encoder(errors, custom_encoder={Exception: str})


async def _warm_up(backend: Backend) -> None:
    try:
        await off_loop(backend.warm_up)
    except Exception:  # the first message then loads what it needs itself
        log.exception("warming up failed")
    finally:
        settle_heap()  # the collector's first full pass would stop the loop ~100 ms (``_heap``)
        backend.warm = True


async def _stop(app: FastAPI, backend: Backend, background: list[asyncio.Task[None]]) -> None:
    """Shut down within ``STOP_GRACE_S``: turns under way may finish in the grace; then they are cut (the
    person's words are stored already and the claim is let go, so the message can be sent again)."""
    for task in background:
        task.cancel()
    turns = list(app.state.tasks)
    if turns:
        _, running = await asyncio.wait(turns, timeout=STOP_GRACE_S)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
    await asyncio.gather(*background, return_exceptions=True)
    await backend.hub.stop()
    gc.unfreeze()  # what start-up froze may be collected again (an app stopped inside a longer process)


async def _extraction_loop(backend: Backend, every_s: float) -> None:
    """Memory extraction off the reply path: run what is due, every few seconds."""
    while True:
        try:
            await backend.run_extraction()
        except Exception:  # a broken model must not stop the loop
            log.exception("memory extraction failed; retrying later")
        await asyncio.sleep(every_s)
