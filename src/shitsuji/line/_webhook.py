"""``POST /line/webhook``: check LINE's signature on the raw body, store the events, answer 200 at once.

The ``X-Line-Signature`` header is an HMAC-SHA256 of the exact request body under the
channel secret; it is checked (by the SDK's ``SignatureValidator``) before the body is
parsed, so a wrong or missing signature gets a 400 and nothing is parsed, stored or
answered. The app's body limit (64 KiB) applies. Events are only stored here — the
answer comes from the worker — so LINE always gets its 200 in a few milliseconds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from linebot.v3.webhook import SignatureValidator

from .._offload import off_loop
from ._inbox import Inbox

__all__ = ["WEBHOOK_PATH", "not_configured_router", "webhook_router"]

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/line/webhook"
NOT_CONFIGURED = (
    "the LINE channel is not configured: set SHITSUJI_LINE_CHANNEL_SECRET and SHITSUJI_LINE_CHANNEL_TOKEN "
    "and restart `shitsuji serve`"
)


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _events(body: bytes) -> list[dict[str, Any]] | None:
    """The events of a webhook body, or None when it is not the shape LINE sends."""
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    events = payload.get("events") if isinstance(payload, dict) else None
    if not isinstance(events, list):
        return None
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("webhookEventId"), str):
            return None
    return events


def webhook_router(inbox: Inbox, secret: str, *, stored: Callable[[], None] | None = None) -> APIRouter:
    """The webhook over ``inbox``; ``stored`` is called after new events were stored (to wake a worker)."""
    router = APIRouter()
    validator = SignatureValidator(secret)

    @router.post(WEBHOOK_PATH, include_in_schema=False)
    async def webhook(request: Request) -> Response:
        signature = request.headers.get("x-line-signature")
        if not signature:
            return _refuse(400, "missing X-Line-Signature")
        body = await request.body()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return _refuse(400, "the body is not UTF-8")
        if not validator.validate(text, signature):
            log.warning("LINE webhook with a wrong signature refused")
            return _refuse(400, "wrong X-Line-Signature")
        events = _events(body)
        if events is None:
            return _refuse(400, "not a LINE webhook body: expected {'events': [{webhookEventId, …}]}")
        if await off_loop(inbox.accept, events) and stored is not None:
            stored()
        return JSONResponse({})

    return router


def not_configured_router() -> APIRouter:
    """Without LINE settings the webhook says so (503) instead of a bare 404."""
    router = APIRouter()

    @router.post(WEBHOOK_PATH, include_in_schema=False)
    async def webhook() -> Response:
        return _refuse(503, NOT_CONFIGURED)

    return router
