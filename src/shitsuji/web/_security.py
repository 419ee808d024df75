"""Sign-in state, CSRF and request-size checks for the web app.

A session cookie (random token, http-only, SameSite=Lax, Secure over https or when
forced) names the member; every state-changing request must also carry the session's
CSRF token, in the ``X-CSRF-Token`` header (scripts) or a ``csrf`` form field (forms).
The sign-in form itself is protected by a double-submit cookie.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

from fastapi import Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._offload import off_loop
from ..errors import ShitsujiError
from ..household import Household
from ..store import acting_as
from ._accounts import SESSION_TTL, Attempt
from ._backend import Backend
from ._member import Member

SESSION_COOKIE = "shitsuji_session"
LOGIN_COOKIE = "shitsuji_login"
LANG_COOKIE = "lang"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class NotSignedIn(ShitsujiError):
    """No valid session: sign in first."""


class CsrfRejected(ShitsujiError):
    """A state-changing request without the session's CSRF token."""


class RateLimited(ShitsujiError):
    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many failed sign-ins: try again in {retry_after} seconds")
        self.retry_after = retry_after


def backend_of(request: Request) -> Backend:
    found: Backend = request.app.state.backend
    return found


def session_member(request: Request) -> Member | None:
    session = backend_of(request).accounts.session(request.cookies.get(SESSION_COOKIE))
    if session is None:
        return None
    return Member(session.household, session.user, session.csrf)


async def signed_in(request: Request) -> Member:
    """The signed-in member; state-changing requests must carry the session's CSRF token."""
    member = await off_loop(signed_member, request, await sent_token(request))
    # the request is this member's (on the loop too: its later trips to worker threads copy this context)
    acting_as(member.household, member.user, reads_may_lag=request.method in SAFE_METHODS)
    return member


async def sent_token(request: Request) -> str | None:
    """The CSRF token a state-changing request sent: its header, else a form's ``csrf`` field."""
    if request.method in SAFE_METHODS:
        return None
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        field = (await request.form()).get("csrf")
        sent = field if isinstance(field, str) else None
    return sent


def signed_member(request: Request, sent: str | None) -> Member:
    """The session's member (blocking: the session is read), ``sent`` checked against its CSRF token for
    a state-changing request; acting as the member in this thread from here on. A route may call it in
    the worker trip that does its own blocking work (the chat: one trip, not two)."""
    return _checked(request, sent, session_member(request))


def signed_home(request: Request, sent: str | None) -> tuple[Member, Household | None]:
    """``signed_member`` and the member's household read with the session (one statement: the chat's
    first read), for the turn's membership check and time zone."""
    found = backend_of(request).accounts.session_home(request.cookies.get(SESSION_COOKIE))
    session, home = found if found is not None else (None, None)
    member = Member(session.household, session.user, session.csrf) if session is not None else None
    return _checked(request, sent, member), home


def _checked(request: Request, sent: str | None, member: Member | None) -> Member:
    """The session's ``member``, ``sent`` checked against its CSRF token (see ``signed_member``)."""
    if member is None:
        raise NotSignedIn("sign in first")
    # the request is this member's: a read-only one may read a streaming replica (``store._replica``)
    acting_as(member.household, member.user, reads_may_lag=request.method in SAFE_METHODS)
    if request.method not in SAFE_METHODS and (not sent or not secrets.compare_digest(sent, member.csrf)):
        raise CsrfRejected("the form is out of date or came from another site (CSRF token missing or wrong)")
    return member


def secure_cookies(request: Request) -> bool:
    forced: bool | None = request.app.state.secure_cookies
    return forced if forced is not None else request.url.scheme == "https"


def cookie_options(request: Request) -> dict[str, Any]:
    return {"httponly": True, "samesite": "lax", "secure": secure_cookies(request), "path": "/"}


def open_session(request: Request, response: Response, household: str, user: str) -> Member:
    """Start a session for a verified member: the session cookie on ``response``, the sign-in cookie gone."""
    token, session = backend_of(request).accounts.start_session(household, user)
    max_age = int(SESSION_TTL.total_seconds())
    response.set_cookie(SESSION_COOKIE, token, max_age=max_age, **cookie_options(request))
    response.delete_cookie(LOGIN_COOKIE, path="/")
    return Member(household, user, session.csrf)


def close_session(request: Request, response: Response) -> None:
    """End the request's session (if any) and remove its cookie."""
    backend_of(request).accounts.end_session(request.cookies.get(SESSION_COOKIE))
    response.delete_cookie(SESSION_COOKIE, path="/")


def login_form_ok(request: Request, sent: str) -> bool:
    """Whether a signed-out form (sign-in, first run) came back with the token its cookie holds."""
    cookie = request.cookies.get(LOGIN_COOKIE, "")
    return bool(cookie and sent) and secrets.compare_digest(cookie, sent)


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


BUSY_WAIT = 30.0  # seconds an attempt waits for its address's running checks before it is refused


async def reserve_attempt(request: Request, household: str, user: str) -> tuple[Attempt, list[str]]:
    """One password check's reservation under the sign-in limiter (member + address), or ``RateLimited``.

    Every check of a password — signing in, the current password on a change, a reset code —
    goes through here, so guessing through any of them draws on the same allowance.
    """
    accounts = backend_of(request).accounts
    keys = [f"member:{household}/{user}"]
    addresses = [f"addr:{client_address(request)}"]
    deadline = time.monotonic() + BUSY_WAIT
    while True:
        attempt = await off_loop(accounts.begin_attempt, keys, addresses)
        if attempt.retry_after:
            raise RateLimited(attempt.retry_after)
        if not attempt.busy:
            return attempt, keys
        if time.monotonic() > deadline:
            raise RateLimited(1)
        await asyncio.sleep(0.05)  # the address has enough checks running: wait for one to end


class BodyTooLarge(Exception):
    """Raised to the app while it reads a body over the limit (it is answered with 413)."""


class LimitBody:
    """Refuse request bodies over ``limit`` bytes with 413, whether or not Content-Length is sent.

    ``larger`` gives single paths their own limit (the picture upload): every other path keeps the
    small one, so a big body can only go where it is read as pictures.
    """

    def __init__(self, app: ASGIApp, limit: int, larger: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.limit = limit
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.limit)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                await _too_large(send, limit)
                return
        seen = 0
        over = started = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # stop reading: a body cut short must never be handled
                    over = True
                    raise BodyTooLarge(f"the request body passed {limit} bytes")
            return message

        async def answer(message: Message) -> None:
            nonlocal started
            if over:  # whatever the app made of the refused body, the answer is 413
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await _too_large(send, limit)
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, answer)
        except Exception:
            if not over:
                raise
            if not started:
                started = True
                await _too_large(send, limit)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"error": f"the request is larger than {limit:,} bytes: send less at once"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
