"""A forgotten password, recovered through something only its member has; and their LINE links.

No web flow lets one member choose another's password: a member who forgot theirs sends
"パスワード再設定" / "reset password" to the butler from their own linked LINE account, which
answers that account alone with a one-time code (``LineLinks.new_reset_code``); the code
and a new password, entered on the signed-out "forgot your password?" page, set it. The
code is checked under the sign-in limiter (member + address), works once, for 15 minutes,
and only while that LINE account is still the member's link. A member without LINE asks
whoever runs the server (``shitsuji household set-password``). The reset, and linking and
unlinking LINE, are recorded in the audit log as the member's own events.

A member sees their linked LINE account (its id masked) in Settings and can remove it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from .._offload import off_loop
from ..errors import ShitsujiError, UserInputError
from ._accounts import MAX_PASSWORD, Attempt, check_password
from ._backend import Backend
from ._locale import Refusal, said, words
from ._member import Member
from ._pages import see, signed_out_form
from ._rules import new_password
from ._security import (
    RateLimited,
    backend_of,
    close_session,
    login_form_ok,
    open_session,
    reserve_attempt,
    signed_in,
)

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")
Signed = Annotated[Member, Depends(signed_in)]
Text = Annotated[str, Form(max_length=MAX_PASSWORD)]


async def reset_password(request: Request, household: str | None, user: str, code: str, password: str) -> str:
    """Set ``user``'s password with the code their LINE account was sent; the household's name.

    Every way it can fail answers the same (a wrong member, household or code look alike).
    """
    backend = backend_of(request)
    check_password(password)
    name, known = await off_loop(_member_of, backend, household, user)
    attempt, keys = await reserve_attempt(request, name or household or "?", user)
    return await off_loop(_reset, backend, name if known else None, user, code, password, attempt, keys)


def _member_of(backend: Backend, household: str | None, user: str) -> tuple[str | None, bool]:
    """The household's name (None: no such household) and whether ``user`` is its member."""
    try:
        home = backend.store.resolve(household or None)
    except ShitsujiError:
        return None, False
    return home.name, user in home.members


def _reset(
    backend: Backend, name: str | None, user: str, code: str, password: str, attempt: Attempt, keys: list[str]
) -> str:
    """The reset itself, in a worker thread (``name`` None: not a member, refused like a wrong code)."""
    if name is None or not backend.line_links.redeem_reset(name, user, code):
        backend.accounts.failed(attempt)
        if name is not None:
            backend.accounts.record("password.reset_failed", name, user)
        raise Refusal(
            "bad_reset_code",
            "the user, household or code is wrong, or the code was used or expired: "
            'send "reset password" to the butler on LINE for a new one',
        )
    backend.accounts.succeeded(attempt, clear=keys)
    backend.accounts.set_password(name, user, password)  # every session of theirs ends
    backend.accounts.record("password.reset", name, user, via="line")
    return name


def unlink_line(request: Request, member: Member) -> int:
    """Remove the member's own LINE links (and reset codes); how many went. Recorded when any did."""
    backend = backend_of(request)
    gone = backend.line_links.unlink_member(member.household, member.user)
    if gone:
        backend.accounts.record("line.unlinked", member.household, member.user, by="app")
    return gone


# -- pages --------------------------------------------------------------------


def _forgot_page(request: Request, status: int = 200, error: str | None = None, user: str = "") -> Response:
    households = [h.name for h in backend_of(request).store.households()]
    return signed_out_form(request, "forgot.html", status, error=error, households=households, user=user)


@router.get("/forgot", response_class=HTMLResponse)
def forgot_form(request: Request) -> Response:
    return _forgot_page(request)


@router.post("/forgot", response_class=HTMLResponse)
async def forgot(
    request: Request,
    user: Annotated[str, Form(max_length=64)] = "",
    household: Annotated[str, Form(max_length=64)] = "",
    code: Annotated[str, Form(max_length=40)] = "",
    password: Text = "",
    password2: Text = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    t = words(request)
    if not login_form_ok(request, csrf):
        return await off_loop(_forgot_page, request, 403, t("error_403"), user)
    try:
        name = await reset_password(
            request, household or None, user.strip(), code, new_password(password, password2)
        )
    except RateLimited as exc:
        limited = await off_loop(_forgot_page, request, 429, t("too_many", seconds=exc.retry_after), user)
        limited.headers["Retry-After"] = str(exc.retry_after)
        return limited
    except UserInputError as exc:
        return await off_loop(_forgot_page, request, 400, said(t, exc), user)
    response = see("/")
    await off_loop(_new_session, request, response, name, user.strip())
    return response


def _new_session(request: Request, response: Response, household: str, user: str) -> None:
    close_session(request, response)
    open_session(request, response, household, user)


@router.post("/settings/line/unlink", response_class=HTMLResponse)
def unlink_form(member: Signed, request: Request) -> Response:
    unlink_line(request, member)
    return see("/settings?done=line_unlinked")


# -- the JSON API ---------------------------------------------------------------


class ResetIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: Annotated[str, Field(min_length=1, max_length=64)]
    household: Annotated[str | None, Field(default=None, max_length=64)] = None
    code: Annotated[str, Field(min_length=1, max_length=40, description="The code the butler sent on LINE.")]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


@api.post("/password/reset", tags=["session"])
async def api_reset(body: ResetIn, request: Request, response: Response) -> dict[str, Any]:
    """Signed out: choose a new password with the code the butler sent to your own LINE account
    (send it "reset password"); you are signed in. Checked under the sign-in limit."""
    name = await reset_password(request, body.household, body.user, body.code, body.password)
    member = await off_loop(open_session, request, response, name, body.user)
    return {"user": member.user, "household": member.household, "csrf": member.csrf}


@api.delete("/line", tags=["line"])
def api_unlink(member: Signed, request: Request) -> dict[str, Any]:
    """Remove your LINE link: that account no longer speaks for you (link again with a new code)."""
    return {"unlinked": unlink_line(request, member), "links": []}
