"""The JSON API under ``/api``: everything the pages do, documented by the OpenAPI schema."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from .._metrics import SIGN_IN_REFUSALS
from .._offload import off_loop
from ..agent import Turn
from ..agent._assistant import MAX_MESSAGE_CHARS
from ..errors import ShitsujiError, UserInputError
from ..household import Household, Panel, PanelAction, label_of
from ..llm import Block
from ..store import acting_as
from ._accounts import Attempt
from ._backend import Backend
from ._cards import card_view, decision_text
from ._i18n import Words
from ._json_body import documented, validated
from ._locale import words
from ._member import Member
from ._security import (
    RateLimited,
    backend_of,
    client_address,
    close_session,
    open_session,
    reserve_attempt,
    sent_token,
    signed_home,
    signed_in,
)

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api")

Signed = Annotated[Member, Depends(signed_in)]
PanelName = Panel
Id = Annotated[str, Field(min_length=1, max_length=64)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SignIn(Strict):
    user: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]
    household: Annotated[str | None, Field(max_length=64)] = None


Key = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class ChatIn(Strict):
    message: Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS)]
    conversation: Annotated[str | None, Field(max_length=64)] = None
    key: Annotated[
        Key | None, Field(description="One per composed message: a resend with the same key is stored once.")
    ] = None


class PanelIn(Strict):
    name: PanelName | None = None
    conversation: Annotated[str | None, Field(max_length=64)] = None


class MemoryEdit(Strict):
    content: Annotated[str | None, Field(min_length=1, max_length=4000)] = None
    category: Annotated[str | None, Field(min_length=1, max_length=40)] = None
    importance: Annotated[float | None, Field(ge=0.0, le=1.0)] = None


def shown(request: Request, member: Member, card: dict[str, Any], t: Words | None = None) -> dict[str, Any]:
    """A card with ``view``: what it says in the request's language and the household's time zone
    (``t``: those words, read beforehand — on the loop, the zone is not read from the database)."""
    return {**card, "view": card_view(card, t or words(request, member))}


def me_json(backend: Backend, member: Member) -> dict[str, Any]:
    home = backend.store.get(member.household)
    return {
        "user": member.user,
        "household": member.household,
        "members": list(home.members),
        "csrf": member.csrf,
        "model_ready": backend.model_ready,
        "model_problem": backend.model_problem,
    }


async def sign_in(
    request: Request, response: Response, user: str, password: str, household: str | None
) -> Member:
    """Check the password (rate-limited per member and per address) and start a session.

    The reservation may wait its turn behind the address's running checks (on the loop, asleep);
    every step that reads or writes the database, and the argon2 check (~0.1 s of CPU), runs in a
    worker thread: none may stall the other streams.
    """
    backend = backend_of(request)
    home, name = await off_loop(_home_named, backend, household)
    address = client_address(request)
    try:
        attempt, keys = await reserve_attempt(request, name, user)  # counted before the check, atomically
    except RateLimited:
        SIGN_IN_REFUSALS.inc(reason="rate_limited")
        await off_loop(
            backend.accounts.record, "signin.limited", home.name if home else None, user, address=address
        )
        raise
    return await off_loop(_check_password, request, response, home, name, user, password, attempt, keys)


def _home_named(backend: Backend, household: str | None) -> tuple[Household | None, str]:
    try:
        home = backend.store.resolve(household or None)
    except ShitsujiError:
        return None, household or "?"
    return home, home.name


def _check_password(
    request: Request,
    response: Response,
    home: Household | None,
    name: str,
    user: str,
    password: str,
    attempt: Attempt,
    keys: list[str],
) -> Member:
    backend = backend_of(request)
    member_ok = home is not None and user in home.members
    stored = backend.accounts.password_hash(name, user)
    if not backend.accounts.matches(stored, password) or not member_ok:
        SIGN_IN_REFUSALS.inc(reason="wrong_user_or_password")
        backend.accounts.failed(attempt)  # the reserved attempt stays a failure
        backend.accounts.record(
            "signin.failed", home.name if home else None, user, address=client_address(request)
        )
        raise UserInputError("wrong user or password")
    assert stored is not None
    backend.accounts.upgrade(name, user, stored, password)
    backend.accounts.succeeded(attempt, clear=keys)
    return open_session(request, response, name, user)


@router.get("/health", tags=["session"])
async def health(request: Request) -> dict[str, Any]:
    """Reachable signed out: is the server up, is a model configured, is it still warming up (loading the
    embedder and memory indexes: the first reply then waits for them)?"""
    backend = backend_of(request)
    return {"ok": True, "model_ready": backend.model_ready, "warming_up": not backend.warm}


@router.post("/session", tags=["session"])
async def api_sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
    """Sign in (sets the session cookie); the answer carries the CSRF token for later writes."""
    member = await sign_in(request, response, body.user, body.password, body.household)
    return await off_loop(me_json, backend_of(request), member)


@router.delete("/session", tags=["session"])
async def api_sign_out(member: Signed, request: Request, response: Response) -> dict[str, Any]:
    await off_loop(close_session, request, response)
    return {"signed_out": member.user}


@router.get("/me", tags=["session"])
def me(member: Signed, request: Request) -> dict[str, Any]:
    return me_json(backend_of(request), member)


# -- chat -------------------------------------------------------------------


@router.get("/conversation", tags=["chat"])
def conversation(
    member: Signed, request: Request, id: Annotated[str | None, Query(max_length=64)] = None
) -> dict[str, Any]:
    """A conversation (default: the latest) as the chat shows it: messages and cards, by time."""
    backend = backend_of(request)
    found = backend.conversation(member, id)
    return {"id": found.id, "panel": backend.open_panel(found), "items": backend.timeline(member, found)}


@router.get("/conversations", tags=["chat"])
def conversations(
    member: Signed, request: Request, limit: Annotated[int, Query(ge=1, le=100)] = 10
) -> list[dict[str, Any]]:
    """The member's latest conversations, newest first (id, updated_at, messages, title)."""
    return backend_of(request).recent_conversations(member, limit)


@router.post("/conversations", tags=["chat"])
async def new_conversation(member: Signed, request: Request) -> dict[str, Any]:
    """Start a new conversation (the open panel's segment is closed)."""
    started = await backend_of(request).new_conversation(member)
    return {"id": started.id, "panel": None, "items": []}


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post(
    "/chat",
    tags=["chat"],
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"},
        422: {"description": "The body is not a valid ChatIn (answered after the session check)"},
    },
    openapi_extra=documented(ChatIn),  # the body is validated in the route, after the session check
)
async def chat(request: Request) -> StreamingResponse:
    """Say something; the reply streams as server-sent events.

    Events: ``conversation`` (its id), ``mode``, ``tools`` (names, while they run), ``text``
    (a piece of the reply), ``proposal`` (a confirmation card), ``panel`` (the butler asks the
    UI to open a panel), ``done`` (the whole reply) or ``error`` (what went wrong; the
    message is kept).
    """
    # signed in (401, 403 without the CSRF token), then the body (422), then claimed before the stream
    # starts: 400 for bad words, 409 while a turn runs there, 503 without a model — with the turn's
    # start, in one trip (``_json_body``: a declared body would be validated before the session check)
    sent = await sent_token(request)
    raw = await request.body()
    member, turn, t = await off_loop(signed_begun, request, sent, raw)
    acting_as(member.household, member.user, reads_may_lag=False)  # the turn's later trips are the member's
    return stream_turn(request, member, turn, t)


def signed_begun(request: Request, sent: str | None, raw: bytes) -> tuple[Member, Turn, Words]:
    """The session's member (``signed_member``, its household read with it), the body ``raw`` as
    ``ChatIn`` and ``begun``, in that order and in one trip to a worker thread — its statements (the
    session, the claim, the conversation, the words, recall) on one pooled connection (``one_connection``)."""
    with backend_of(request).butler.database.one_connection():
        member, home = signed_home(request, sent)
        body = validated(ChatIn, raw, request.headers.get("content-type"))
        return (member, *begun(request, member, body.message, body.conversation, key=body.key, home=home))


def begun(
    request: Request,
    member: Member,
    text: str,
    conversation: str | None,
    *,
    key: str | None,
    images: Sequence[Block] = (),
    alone: str = "",
    home: Household | None = None,
) -> tuple[Turn, Words]:
    """The member's words (language, household zone) and the claimed turn with its start done
    (``ChatService.ready``: the words kept, recall), in one trip to a worker thread: each trip queues
    behind the other sessions' work (``bench web``'s first text). ``alone``: the words table's key
    for what was said when ``text`` is empty (a picture alone); ``home``: the member's household as read
    with the session (else read here)."""
    t = words(request, member, home)  # first: nothing to fail once the conversation is claimed
    said = text if text or not alone else t(alone)
    backend = backend_of(request)
    return backend.begin(member, said, conversation, key=key, images=images, start=True, home=home), t


def stream_turn(request: Request, member: Member, turn: Turn, t: Words) -> StreamingResponse:
    """A claimed turn run to the end (and saved) whether or not the browser stays, its events streamed
    (``t``: the member's words and zone for its cards, read off the loop beforehand)."""
    backend = backend_of(request)
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def emit(event: str, data: dict[str, Any]) -> None:
        queue.put_nowait(_sse(event, shown(request, member, data, t) if event == "proposal" else data))

    async def run() -> None:
        try:
            await backend.run(member, turn, emit)
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(run())  # runs to the end (and saves) even if the browser leaves
    request.app.state.tasks.add(task)
    task.add_done_callback(request.app.state.tasks.discard)

    async def stream() -> AsyncIterator[str]:
        ended = False
        while not ended:  # the events ready by now go out in one write (a turn's first ones come together)
            chunks = [await queue.get()]
            while not queue.empty():
                chunks.append(queue.get_nowait())
            ended = None in chunks
            if sent := "".join(c for c in chunks if c is not None):
                yield sent

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


# -- panels -----------------------------------------------------------------


@router.get("/panels/{name}", tags=["panels"])
def panel(
    name: PanelName,
    member: Signed,
    request: Request,
    month: Annotated[str | None, Query(pattern=r"^\d{4}-\d{2}$")] = None,
) -> dict[str, Any]:
    """What a panel shows: shopping items, upcoming events, open to-dos, or a month's expenses."""
    return backend_of(request).panel(member, name, month)


@router.put("/panel", tags=["panels"])
async def set_panel(body: PanelIn, member: Signed, request: Request) -> dict[str, Any]:
    """Open a panel (a conversation segment labelled by it starts) or close it (``name`` null)."""
    backend = backend_of(request)
    opened = await backend.set_panel(member, body.name, body.conversation)
    return {"panel": opened, "label": label_of(opened) if opened else None}


@router.post("/panel-actions", tags=["panels"])
async def panel_action(
    action: Annotated[PanelAction, Body()], member: Signed, request: Request
) -> dict[str, Any]:
    """Change a list directly, as the signed-in member (no card): ``action`` is one of
    ``add_shopping_item``, ``check_shopping_item`` (``checked`` false ticks it back on),
    ``remove_shopping_item``, ``add_event``, ``remove_event``, ``add_todo`` (with ``repeat``:
    ``weekly`` + ``weekdays``, ``monthly_weekday`` + ``weeks`` and ``weekdays``, ``monthly_day`` +
    ``day_of_month``, a recurring one), ``complete_todo`` (``done`` false reopens), ``remove_todo``,
    ``add_expense``, ``remove_expense``. Answers the row and ``changed`` (false when it already was
    so, e.g. the spouse ticked it a moment ago); the change and its audit row commit together."""
    return (await backend_of(request).act(member, action)).to_json()


@router.get(
    "/events",
    tags=["panels"],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"}},
)
async def events(member: Signed, request: Request) -> StreamingResponse:
    """Live updates: a ``household`` event whenever the household's lists change (from anywhere)."""
    backend = backend_of(request)

    async def stream() -> AsyncIterator[str]:
        version = backend.hub.versions.get(member.household, 0)
        seen = await off_loop(backend.fingerprint, member.household)
        yield _sse("hello", {"fingerprint": seen})
        while not await request.is_disconnected():
            version = await backend.hub.wait(member.household, version, timeout=backend.hub.poll_s)
            now = await off_loop(backend.fingerprint, member.household)
            if now != seen:
                seen = now
                yield _sse("household", {"fingerprint": now})
            else:
                yield ": keep-alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


# -- proposals --------------------------------------------------------------


@router.get("/proposals", tags=["proposals"])
def proposals(
    member: Signed,
    request: Request,
    state: Literal["pending", "decided", "expired", "all"] = "all",
) -> list[dict[str, Any]]:
    """The member's proposals, newest first; ``state`` picks pending, decided or expired ones."""
    backend = backend_of(request)
    cards = [shown(request, member, backend.card(p)) for p in backend.proposal_list(member)]
    if state == "all":
        return cards
    if state == "decided":
        return [c for c in cards if c["state"] not in ("pending", "expired")]
    return [c for c in cards if c["state"] == state]


@router.get("/proposals/{proposal_id}", tags=["proposals"])
def proposal(proposal_id: Id, member: Signed, request: Request) -> dict[str, Any]:
    backend = backend_of(request)
    return shown(request, member, backend.card(backend.proposal(member, proposal_id)))


async def _decide(request: Request, member: Member, proposal_id: str, approve: bool) -> JSONResponse:
    backend = backend_of(request)
    decision, opened = await backend.decide(member, proposal_id, approve)
    t = await off_loop(words, request, member)
    card = shown(request, member, await off_loop(backend.card, decision.proposal), t)
    body = {
        "done": decision.done,
        "reason": decision.reason,
        "code": decision.code,
        "reason_text": decision_text(decision.code, card, t),
        "proposal": card,
        "panel": opened,  # an approved open_panel: the page shows the panel
    }
    return JSONResponse(body, status_code=200 if decision.done else 409)


@router.post("/proposals/{proposal_id}/approve", tags=["proposals"], responses={409: {}})
async def approve(proposal_id: Id, member: Signed, request: Request) -> JSONResponse:
    """Run the proposed write once, now. 409 (nothing done) if it is no longer pending or has expired."""
    return await _decide(request, member, proposal_id, True)


@router.post("/proposals/{proposal_id}/reject", tags=["proposals"], responses={409: {}})
async def reject(proposal_id: Id, member: Signed, request: Request) -> JSONResponse:
    return await _decide(request, member, proposal_id, False)


# -- LINE -------------------------------------------------------------------


@router.get("/line", tags=["line"])
def line_status(member: Signed, request: Request) -> dict[str, Any]:
    """Whether a LINE account is linked to the member, and which (its id masked, when linked);
    ``DELETE /api/line`` removes it."""
    links = backend_of(request).line_links.links_of(member.household, member.user)
    return {"linked": bool(links), "links": links}


@router.post("/line/code", tags=["line"])
def line_code(member: Signed, request: Request) -> dict[str, Any]:
    """A one-time code (10 minutes, single use) to send to the bot from LINE; it links that LINE account
    to the member. A new code replaces the member's earlier unused one."""
    return backend_of(request).line_code(member)


# -- memories ---------------------------------------------------------------


@router.get("/memories", tags=["memories"])
def memories(
    member: Signed,
    request: Request,
    q: Annotated[str | None, Query(max_length=500)] = None,
    category: Annotated[str | None, Query(max_length=40)] = None,
    scope: Literal["own", "shared", "all"] = "all",
    deleted: bool = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
) -> list[dict[str, Any]]:
    """The member's own and the household's shared memories; ``q`` searches (hybrid recall)."""
    return backend_of(request).memories.browse(
        member, query=q, category=category, scope=scope, deleted=deleted, limit=limit
    )


@router.get("/memories/{memory_id}", tags=["memories"])
def memory(memory_id: Id, member: Signed, request: Request) -> dict[str, Any]:
    """One memory and where it came from ("why do you know this?")."""
    browser = backend_of(request).memories
    found = browser.get(member, memory_id)
    return {**browser.view(member, found), **browser.provenance(member, found)}


@router.patch("/memories/{memory_id}", tags=["memories"])
def edit_memory(memory_id: Id, body: MemoryEdit, member: Signed, request: Request) -> dict[str, Any]:
    """Correct a memory: the new version replaces it (the old one is forgotten, restorable)."""
    browser = backend_of(request).memories
    edited = browser.edit(
        member, memory_id, content=body.content, category=body.category, importance=body.importance
    )
    return browser.view(member, edited)


@router.post("/memories/{memory_id}/forget", tags=["memories"])
def forget_memory(memory_id: Id, member: Signed, request: Request) -> dict[str, Any]:
    browser = backend_of(request).memories
    return browser.view(member, browser.forget(member, memory_id))


@router.post("/memories/{memory_id}/restore", tags=["memories"])
def restore_memory(memory_id: Id, member: Signed, request: Request) -> dict[str, Any]:
    browser = backend_of(request).memories
    return browser.view(member, browser.restore(member, memory_id))


@router.get("/audit", tags=["audit"])
def audit(
    member: Signed, request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 200
) -> list[dict[str, Any]]:
    """The household's activity, newest first: writes, cards and decisions, memory changes, sign-ins
    (the other members' private memory events are left out)."""
    return backend_of(request).activity(member, limit)


@router.get("/openapi.json", include_in_schema=False)
async def openapi(member: Signed, request: Request) -> dict[str, Any]:
    schema: dict[str, Any] = request.app.openapi()
    return schema
