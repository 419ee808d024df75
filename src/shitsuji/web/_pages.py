"""Server-rendered pages. Every form works without JavaScript; ``app.js`` streams and live-updates on top."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from .._offload import off_loop
from ..agent import Failed
from ..errors import UserInputError
from ..household import ACTIONS, LIST_FIELDS, PANELS, check_panel
from ..household._values import MAX_NAME
from ._activity import channel_name, sentence
from ._backend import Backend
from ._cards import card_view, decision_text
from ._i18n import LANGS
from ._locale import said, words
from ._member import Member
from ._rules import household_name, member_name, new_password, time_zones, zone_name
from ._security import (
    LANG_COOKIE,
    LOGIN_COOKIE,
    CsrfRejected,
    RateLimited,
    backend_of,
    close_session,
    cookie_options,
    login_form_ok,
    open_session,
    session_member,
    signed_in,
)

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
templates.env.filters["pretty"] = lambda value: json.dumps(value, ensure_ascii=False, indent=2)

Signed = Annotated[Member, Depends(signed_in)]


def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """The template ``name`` with ``values``; ``t``, the member's words, as the route read them (else read here)."""
    member = values.get("member")
    t = values.pop("t", None) or words(request, member if isinstance(member, Member) else None)
    backend = backend_of(request)
    context = {
        "t": t,
        "view": lambda card: card_view(card, t),
        "here": request.url.path + (f"?{request.url.query}" if request.url.query else ""),
        "lang": t.lang,
        "langs": LANGS,
        "panels": PANELS,
        "path": request.url.path,
        "csrf": member.csrf if isinstance(member, Member) else "",
        "model_ready": backend.model_ready,
        "max_name": MAX_NAME,
        **values,
    }
    return templates.TemplateResponse(request, name, context, status_code=status)


def render_error(request: Request, message: str, status: int) -> HTMLResponse:
    return page(request, "error.html", status, message=message, member=session_member(request), code=status)


def back_to(target: str | None, default: str = "/") -> str:
    """Only paths on this site: never an open redirect."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return default


def see(target: str) -> RedirectResponse:
    return RedirectResponse(target, status_code=303)


# -- sign-in ----------------------------------------------------------------


def signed_out_form(request: Request, name: str, status: int, **values: Any) -> Response:
    """A sign-in or first-run page, with its double-submit token in the form and the cookie."""
    token = secrets.token_urlsafe(24)
    response = page(request, name, status, login_csrf=token, **values)
    response.set_cookie(LOGIN_COOKIE, token, max_age=3600, **cookie_options(request))
    return response


def _login_page(request: Request, error: str | None = None, status: int = 200, user: str = "") -> Response:
    households = [h.name for h in backend_of(request).store.households()]
    return signed_out_form(request, "login.html", status, error=error, households=households, user=user)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request) -> Response:
    if session_member(request) is not None:
        return see("/")
    if not backend_of(request).store.households():
        return see("/setup")
    return _login_page(request)


def _setup_page(request: Request, error: str | None = None, status: int = 200, **values: str) -> Response:
    return signed_out_form(request, "setup.html", status, error=error, zones=time_zones(), **values)


@router.get("/setup", response_class=HTMLResponse)
def setup_form(request: Request) -> Response:
    """First run only: while there is no household, create one and its first member's password."""
    if backend_of(request).store.households():
        return see("/login")
    return _setup_page(request)


@router.post("/setup", response_class=HTMLResponse)
def setup(
    request: Request,
    household: Annotated[str, Form(max_length=64)] = "",
    user: Annotated[str, Form(max_length=64)] = "",
    others: Annotated[str, Form(max_length=500)] = "",
    time_zone: Annotated[str, Form(max_length=64)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    password2: Annotated[str, Form(max_length=1024)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    backend = backend_of(request)
    if backend.store.households():
        return see("/login")
    t = words(request)
    values = {"household": household, "user": user, "others": others, "time_zone": time_zone}
    if not login_form_ok(request, csrf):
        return _setup_page(request, t("error_403"), 403, **values)
    try:
        name = household_name(household)
        members = [member_name(m) for m in (user, *others.replace(",", " ").replace("、", " ").split())]
        zone = zone_name(time_zone) if time_zone.strip() else None
        chosen = new_password(password, password2)
        home = backend.store.create(name, members, time_zone=zone)
        backend.accounts.set_password(home.name, home.members[0], chosen)
    except UserInputError as exc:
        return _setup_page(request, said(t, exc), 400, **values)
    response = see("/")
    open_session(request, response, home.name, home.members[0])
    return response


@router.post("/login", response_class=HTMLResponse)
async def login(
    request: Request,
    user: Annotated[str, Form(max_length=64)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    household: Annotated[str, Form(max_length=64)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    from ._api import sign_in

    t = words(request)
    if not login_form_ok(request, csrf):
        return _login_page(request, str(CsrfRejected("the sign-in form expired: try again")), 403, user)
    response = see("/")
    try:
        await sign_in(request, response, user.strip(), password, household or None)
    except RateLimited as exc:
        limited = _login_page(request, t("too_many", seconds=exc.retry_after), 429, user)
        limited.headers["Retry-After"] = str(exc.retry_after)
        return limited
    except UserInputError:
        return _login_page(request, t("bad_login"), 400, user)
    return response


@router.post("/logout")
def logout(member: Signed, request: Request) -> Response:
    response = see("/login")
    close_session(request, response)
    return response


@router.get("/lang/{code}")
def set_lang(code: Literal["ja", "en"], request: Request, next: str | None = None) -> Response:
    response = see(back_to(next))
    response.set_cookie(LANG_COOKIE, code, max_age=365 * 86400, samesite="lax", path="/")
    return response


# -- chat and panels ----------------------------------------------------------


def _panel_values(
    backend: Backend, member: Member, panel: str | None, month: str | None = None
) -> dict[str, Any]:
    if panel is None:
        return {"panel": None, "data": None}
    return {"panel": panel, "data": backend.panel(member, panel, month)}


@router.get("/", response_class=HTMLResponse)
def chat_page(
    member: Signed,
    request: Request,
    c: Annotated[str | None, Query(max_length=64)] = None,
    month: Annotated[str | None, Query(pattern=r"^\d{4}-\d{2}$")] = None,
) -> Response:
    backend = backend_of(request)
    conversation = backend.conversation(member, c)
    panel = backend.open_panel(conversation)
    return page(
        request,
        "chat.html",
        member=member,
        conversation=conversation.id,
        items=backend.timeline(member, conversation),
        recent=[c for c in backend.recent_conversations(member) if c["id"] != conversation.id],
        key=secrets.token_urlsafe(12),
        model_problem=backend.model_problem,
        local_model=backend.local_model,
        **_panel_values(backend, member, panel, month),
    )


@router.post("/chat")
async def chat_form(
    member: Signed,
    request: Request,
    message: Annotated[str, Form(max_length=20000)] = "",
    conversation: Annotated[str, Form(max_length=64)] = "",
    key: Annotated[str, Form(max_length=64, pattern=r"^[A-Za-z0-9_-]*$")] = "",
) -> Response:
    """Without JavaScript: the whole reply, then back to the chat (the form's key: a resend is stored once)."""
    backend = backend_of(request)
    turn = await off_loop(backend.begin, member, message, conversation or None, key=key or None, start=True)
    outcome = await backend.run(member, turn, lambda event, data: None)
    if isinstance(outcome, Failed):
        raise outcome.error  # the error page explains it; the words are kept
    return see(f"/?c={outcome.conversation}")


@router.post("/chat/new")
async def chat_new(member: Signed, request: Request) -> Response:
    await backend_of(request).new_conversation(member)
    return see("/")


@router.post("/panel")
async def panel_form(
    member: Signed,
    request: Request,
    name: Annotated[str, Form(max_length=20)] = "",
    conversation: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    backend = backend_of(request)
    found = await off_loop(backend.conversation, member, conversation or None)
    await backend.set_panel(member, check_panel(name) if name else None, found.id)
    return see(f"/?c={found.id}")


@router.post("/panel-actions")
async def panel_action_form(member: Signed, request: Request) -> Response:
    """Without JavaScript: one panel action (the fields of ``POST /api/panel-actions``), then back."""
    form = await request.form()
    fields: dict[str, Any] = {}
    for key, value in form.multi_items():
        if key in ("csrf", "back") or not isinstance(value, str) or value == "":
            continue
        if key in LIST_FIELDS:  # one entry per ticked box (weekdays of a recurring to-do)
            fields.setdefault(key, []).append(value)
        else:
            fields[key] = value
    try:
        action = ACTIONS.validate_python(fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        raise UserInputError(f"invalid panel action: {problems}") from None
    await backend_of(request).act(member, action)
    back = form.get("back")
    return see(back_to(back if isinstance(back, str) else None))


@router.get("/panels/{name}", response_class=HTMLResponse)
def panel_fragment(
    name: str,
    member: Signed,
    request: Request,
    month: Annotated[str | None, Query(pattern=r"^\d{4}-\d{2}$")] = None,
) -> Response:
    """One panel's body, for the script to swap in when the household changes."""
    backend = backend_of(request)
    return page(
        request, "_panel.html", member=member, **_panel_values(backend, member, check_panel(name), month)
    )


# -- proposals ----------------------------------------------------------------


@router.get("/proposals", response_class=HTMLResponse)
def proposals_page(member: Signed, request: Request) -> Response:
    backend = backend_of(request)
    cards = [backend.card(p) for p in backend.proposal_list(member)]
    groups = {
        "pending": [c for c in cards if c["state"] == "pending"],
        "decided": [c for c in cards if c["state"] not in ("pending", "expired")],
        "expired": [c for c in cards if c["state"] == "expired"],
    }
    return page(request, "proposals.html", member=member, groups=groups)


@router.post("/proposals/{proposal_id}/{verb}")
async def decide_form(
    proposal_id: str,
    verb: Literal["approve", "reject"],
    member: Signed,
    request: Request,
    next: Annotated[str, Form(max_length=300)] = "/proposals",
) -> Response:
    backend = backend_of(request)
    decision, _ = await backend.decide(member, proposal_id, verb == "approve")
    if not decision.done:
        card = backend.card(decision.proposal)
        return render_error(request, decision_text(decision.code, card, words(request, member)), 409)
    return see(back_to(next, "/proposals"))


# -- activity -----------------------------------------------------------------


@router.get("/activity", response_class=HTMLResponse)
def activity_page(member: Signed, request: Request) -> Response:
    """Each audit row as a sentence in the page's language, naming the item it touched."""
    backend, t = backend_of(request), words(request, member)
    cards = {p.id: p for p in backend.butler.proposals.list(household=member.household)}
    rows = [
        {**e, "sentence": sentence(e, t, cards), "where": channel_name(e.get("channel"), t)}
        for e in backend.activity(member)
    ]
    return page(request, "activity.html", member=member, events=rows)


# -- memories -----------------------------------------------------------------


@router.get("/memories", response_class=HTMLResponse)
def memories_page(
    member: Signed,
    request: Request,
    q: Annotated[str | None, Query(max_length=500)] = None,
    category: Annotated[str | None, Query(max_length=40)] = None,
    scope: Literal["own", "shared", "all"] = "all",
    deleted: bool = False,
) -> Response:
    backend = backend_of(request)
    t = words(request, member)  # the household's zone read once, for the page and its search
    return page(
        request,
        "memories.html",
        t=t,
        member=member,
        memories=backend.memories.browse(
            member, query=q, category=category or None, scope=scope, deleted=deleted, zone=t.zone
        ),
        categories=backend.memories.categories(member),
        q=q or "",
        category=category or "",
        scope=scope,
        deleted=deleted,
        line_linked=backend.line_status(member),
    )


@router.post("/line/code", response_class=HTMLResponse)
def line_code_page(member: Signed, request: Request) -> Response:
    """A fresh LINE link code, shown once."""
    return page(request, "line.html", member=member, **backend_of(request).line_code(member))


@router.get("/memories/{memory_id}", response_class=HTMLResponse)
def memory_page(memory_id: str, member: Signed, request: Request) -> Response:
    browser = backend_of(request).memories
    found = browser.get(member, memory_id)
    return page(
        request,
        "memory.html",
        member=member,
        memory=browser.view(member, found),
        origin=browser.provenance(member, found),
    )


@router.post("/memories/{memory_id}/edit")
def memory_edit_form(
    memory_id: str,
    member: Signed,
    request: Request,
    content: Annotated[str, Form(max_length=4000)] = "",
    category: Annotated[str, Form(max_length=40)] = "",
    importance: Annotated[float | None, Form(ge=0.0, le=1.0)] = None,
) -> Response:
    if not content.strip():
        raise UserInputError("the memory is empty: write the fact, or use Forget")
    edited = backend_of(request).memories.edit(
        member, memory_id, content=content, category=category or None, importance=importance
    )
    return see(f"/memories/{edited.id}")


@router.post("/memories/{memory_id}/{verb}")
def memory_forget_form(
    memory_id: str, verb: Literal["forget", "restore"], member: Signed, request: Request
) -> Response:
    browser = backend_of(request).memories
    change = browser.forget if verb == "forget" else browser.restore
    done = change(member, memory_id)
    return see(f"/memories/{done.id}")
