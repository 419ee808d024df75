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

from .._offload import off_loop_ack
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


MAX_DEPTH = 16  # LINE's events nest about 5 deep; a body nested deeper is refused before parsing
MAX_EVENTS = 100


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests arrays/objects deeper than ``limit`` (strings skipped), before parsing it:
    ``json.loads`` recurses, and a signed body 30,000 deep would overflow the stack."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _problem(event: object) -> str | None:
    """Why one event cannot be stored (None: it can). Each event is judged on its own."""
    if not isinstance(event, dict):
        return "not an object"
    if not isinstance(event.get("webhookEventId"), str) or not event["webhookEventId"]:
        return "no webhookEventId"
    if not isinstance(event.get("type"), str):
        return "no type"
    source = event.get("source")
    if source is not None and (
        not isinstance(source, dict) or not all(isinstance(v, str) for v in source.values())
    ):
        return "source is not an object of strings"
    return None


def _events(text: str) -> list[dict[str, Any]] | None:
    """The storable events of a webhook body (bad ones skipped and logged), or None when the body
    is not the shape LINE sends at all."""
    if too_deep(text):
        return None
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        return None
    events = payload.get("events") if isinstance(payload, dict) else None
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        return None
    good: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        problem = _problem(event)
        if problem is None:
            good.append(event)
        else:
            log.warning("LINE webhook event %d skipped: %s", index, problem)
    return good


def webhook_router(inbox: Inbox, secret: str, *, stored: Callable[[], None] | None = None) -> APIRouter:
    """The webhook over ``inbox``; ``stored`` is called after new events were stored (to wake a worker)."""
    # here, not at the top: without LINE settings the app mounts ``not_configured_router`` and
    # never loads line-bot-sdk (seconds of serve's start before it answers its health check)
    from linebot.v3.webhook import SignatureValidator

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
        events = _events(text)
        if events is None:
            return _refuse(400, "not a LINE webhook body: expected {'events': [{webhookEventId, …}]}")
        # its own lane: LINE times this answer, and the chats' trips must not hold it up
        added = await off_loop_ack(inbox.accept, events) if events else 0
        if added and stored is not None:
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
