"""The request log: one line per request — method, path, status, milliseconds — and the JSON log format.

A path is logged without its query string: a search (``/api/memories?q=…``) carries a member's
words there. Bodies, cookies and headers are never logged. ``serve --log-format json`` writes
every log record (this one, uvicorn's, the app's) as one JSON object per line for a log shipper.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("shitsuji.access")
LogFormat = Literal["text", "json"]


class AccessLog:
    """ASGI middleware: log each HTTP request once it is answered (streams: once they end)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, answer)
        finally:
            client = scope.get("client")
            log.info(
                "%s %s %d %.1fms",
                scope["method"],
                scope["path"],
                status,
                (time.perf_counter() - start) * 1000,
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "ms": round((time.perf_counter() - start) * 1000, 1),
                    "client": client[0] if client else None,
                },
            )


_FIELDS = ("method", "path", "status", "ms", "client")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({k: getattr(record, k) for k in _FIELDS if hasattr(record, k)})
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(kind: LogFormat) -> None:
    """Every record at INFO and above to stderr, as text lines or JSON objects; uvicorn's loggers too."""
    handler = logging.StreamHandler()
    handler.setFormatter(
        JsonFormatter()
        if kind == "json"
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in ("shitsuji", "uvicorn.error"):
        logging.getLogger(name).setLevel(logging.INFO)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # ours logs each request, without its query
