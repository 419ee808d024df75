"""The household's settings from the web: its time zone, your password, and links for new members.

A member can change the household's time zone and their own password (the current one is
checked under the sign-in limiter; every other session of theirs ends), and make a one-time
link for a *new* member to join (``_invites``). A link never sets an existing member's
password: a member who forgot theirs recovers it through something only they have — their
own LINE account, or the server's command line (``_recovery``) — so no member can make
themselves a session as another. The pages and the JSON API share the rules below.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Form, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from .._offload import off_loop
from ..errors import NotFoundError, UserInputError
from ..household import Household
from ._accounts import MAX_PASSWORD, Attempt, check_password
from ._backend import Backend
from ._invites import Invitation
from ._locale import Refusal, said, words
from ._member import Member
from ._pages import page, see, signed_out_form
from ._reminder_view import reminder_context
from ._rules import member_name, new_password, time_zones, zone_name
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
Password = Annotated[str, Form(max_length=MAX_PASSWORD)]


def invite(backend: Backend, member: Member, user: str) -> tuple[str, Invitation]:
    """A one-time link for a new member to join (never for an existing member: that would let the
    link's maker choose the other's password and become them)."""
    name = member_name(user)
    if name == member.user:
        raise Refusal("invite_self", "that is you: change your own password instead")
    if name in backend.store.get(member.household).members:
        raise Refusal(
            "invite_member",
            f"{name} is already a member: a forgotten password is reset from their own LINE "
            f'(send "reset password" to the butler) or with `shitsuji household set-password {name}` '
            "on the server",
            user=name,
        )
    made = backend.invitations.create(member.household, name, by=member.user)
    backend.accounts.record("invitation.made", member.household, member.user, invited=name)
    return made


def accept(backend: Backend, token: str, password: str) -> Invitation:
    """Use a link: its new person joins the household with the password they chose.

    A link whose person is a member by now (joined through another link, added on the
    command line) is spent and sets nothing: it is for joining, never for a password.
    """
    check_password(password)
    found = backend.invitations.redeem(token)
    if found is None or found.user in backend.store.get(found.household).members:
        raise NotFoundError("this link is unknown, used or expired: ask a member for a new one")
    backend.store.add_member(found.household, found.user)
    backend.accounts.record("member.joined", found.household, found.user)
    backend.accounts.set_password(found.household, found.user, password)
    return found


async def change_password(request: Request, member: Member, current: str, password: str) -> None:
    """The current password is checked under the sign-in limiter (a stolen session cannot guess it);
    every database step and argon2 run in a worker thread (``off_loop``)."""
    attempt, keys = await reserve_attempt(request, member.household, member.user)
    await off_loop(_change_password, backend_of(request), member, current, password, attempt, keys)


def _change_password(
    backend: Backend, member: Member, current: str, password: str, attempt: Attempt, keys: list[str]
) -> None:
    accounts = backend.accounts
    if not accounts.matches(accounts.password_hash(member.household, member.user), current):
        accounts.failed(attempt)
        raise Refusal("wrong_password", "the current password is wrong")
    accounts.succeeded(attempt, clear=keys)
    accounts.set_password(member.household, member.user, password)  # every session ends


def _link(request: Request, token: str) -> str:
    return str(request.base_url).rstrip("/") + f"/join/{token}"


# -- pages --------------------------------------------------------------------


def _settings_page(request: Request, member: Member, status: int = 200, **values: Any) -> Response:
    backend = backend_of(request)
    home: Household = backend.store.get(member.household)
    passwords = {m: backend.accounts.has_password(home.name, m) for m in home.members}
    return page(
        request,
        "settings.html",
        status,
        member=member,
        home=home,
        passwords=passwords,
        line_links=backend.line_links.links_of(member.household, member.user),
        zones=time_zones(),
        **reminder_context(request, member),
        **values,
    )


def settings_page_with_error(request: Request, member: Member, error: str) -> Response:
    return _settings_page(request, member, 400, error=error)


def _refused(request: Request, member: Member, status: int, exc: RateLimited | UserInputError) -> Response:
    """The settings page with ``exc`` said in the member's words (429: how long to wait)."""
    t = words(request, member)
    if isinstance(exc, RateLimited):
        return _settings_page(request, member, status, error=t("too_many", seconds=exc.retry_after))
    return _settings_page(request, member, status, error=said(t, exc))


@router.get("/settings", response_class=HTMLResponse)
def settings_page(
    member: Signed,
    request: Request,
    done: Literal["saved", "password_changed", "line_unlinked"] | None = None,
) -> Response:
    return _settings_page(request, member, notice=words(request, member)(done) if done else None)


@router.post("/settings/time-zone", response_class=HTMLResponse)
async def time_zone_form(
    member: Signed, request: Request, time_zone: Annotated[str, Form(max_length=64)] = ""
) -> Response:
    try:
        await off_loop(backend_of(request).store.set_time_zone, member.household, zone_name(time_zone))
    except UserInputError as exc:
        return await off_loop(_refused, request, member, 400, exc)
    await backend_of(request).hub.bump(member.household)
    return see("/settings?done=saved")


@router.post("/settings/password", response_class=HTMLResponse)
async def password_form(
    member: Signed,
    request: Request,
    current: Password = "",
    password: Password = "",
    password2: Password = "",
) -> Response:
    try:
        await change_password(request, member, current, new_password(password, password2))
    except RateLimited as exc:
        return await off_loop(_refused, request, member, 429, exc)
    except UserInputError as exc:
        return await off_loop(_refused, request, member, 400, exc)
    response = see("/settings?done=password_changed")
    await off_loop(open_session, request, response, member.household, member.user)  # this browser stays in
    return response


@router.post("/settings/invite", response_class=HTMLResponse)
def invite_form(member: Signed, request: Request, user: Annotated[str, Form(max_length=64)] = "") -> Response:
    try:
        token, invitation = invite(backend_of(request), member, user)
    except UserInputError as exc:
        return _settings_page(request, member, 400, error=said(words(request, member), exc), invitee=user)
    return _settings_page(request, member, link=_link(request, token), invitation=invitation)


def _join_page(request: Request, token: str, status: int = 200, error: str | None = None) -> Response:
    found = backend_of(request).invitations.peek(token)
    if found is None or found.user in backend_of(request).store.get(found.household).members:
        t = words(request)
        return page(request, "error.html", 404, message=t("link_gone"), member=None, code=404)
    return signed_out_form(request, "join.html", status, invitation=found, new=True, token=token, error=error)


@router.get("/join/{token}", response_class=HTMLResponse)
def join_form(token: str, request: Request) -> Response:
    return _join_page(request, token)


@router.post("/join/{token}", response_class=HTMLResponse)
def join(
    token: str, request: Request, password: Password = "", password2: Password = "", csrf: str = Form("")
) -> Response:
    t = words(request)
    if not login_form_ok(request, csrf):
        return _join_page(request, token, 403, t("error_403"))
    try:
        found = accept(backend_of(request), token, new_password(password, password2))
    except NotFoundError:
        return page(request, "error.html", 404, message=t("link_gone"), member=None, code=404)
    except UserInputError as exc:
        return _join_page(request, token, 400, said(t, exc))
    response = see("/")
    close_session(request, response)
    open_session(request, response, found.household, found.user)
    return response


# -- the JSON API ---------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InviteIn(_Strict):
    user: Annotated[
        str, Field(min_length=1, max_length=64, description="A new member's user id, or the other member's.")
    ]


class JoinIn(_Strict):
    token: Annotated[str, Field(min_length=1, max_length=200)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


class PasswordIn(_Strict):
    current: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


class TimeZoneIn(_Strict):
    time_zone: Annotated[str, Field(min_length=1, max_length=64, description="IANA name, e.g. Asia/Tokyo")]


@api.post("/invitations", tags=["household"])
def api_invite(body: InviteIn, member: Signed, request: Request) -> dict[str, Any]:
    """A one-time link (shown this once, valid 48 hours) for a new member to join. An existing member
    is refused: a forgotten password is reset through their own LINE or the server's command line.
    A newer link for the same person replaces the older one."""
    token, invitation = invite(backend_of(request), member, body.user)
    return {
        "link": _link(request, token),
        "user": invitation.user,
        "expires_at": invitation.expires_at.isoformat(),
    }


@api.post("/join", tags=["household"])
def api_join(body: JoinIn, request: Request, response: Response) -> dict[str, Any]:
    """Signed out: use a link's token with the password you choose; you are signed in as its member."""
    found = accept(backend_of(request), body.token, body.password)
    member = open_session(request, response, found.household, found.user)
    return {"user": member.user, "household": member.household, "csrf": member.csrf}


@api.put("/password", tags=["household"])
async def api_password(
    body: PasswordIn, member: Signed, request: Request, response: Response
) -> dict[str, Any]:
    """Change your password (the current one is asked): your other sessions end, this one is renewed."""
    await change_password(request, member, body.current, check_password(body.password))
    fresh = await off_loop(open_session, request, response, member.household, member.user)
    return {"user": fresh.user, "csrf": fresh.csrf}


@api.put("/time-zone", tags=["household"])
async def api_time_zone(body: TimeZoneIn, member: Signed, request: Request) -> dict[str, Any]:
    """The household's time zone: what "today", "this month" and every shown time go by."""
    home = await off_loop(
        backend_of(request).store.set_time_zone, member.household, zone_name(body.time_zone)
    )
    await backend_of(request).hub.bump(member.household)
    return home.to_json()
