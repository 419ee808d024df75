"""Shared set-up for the LINE channel's tests: signed webhook bodies, LINE events, and a site that serves
the real app (webhook + in-process worker) over a real uvicorn server, talking to ``FakeLineAPI``
through the real ``line-bot-sdk`` client, with a scripted model."""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from shitsuji.agent import Tool
from shitsuji.household import Butler, HouseholdStore
from shitsuji.line import FakeLineAPI, LineApp, LineSettings
from shitsuji.llm import ModelRequest, ModelResponse, ScriptedModel, text_response
from shitsuji.store import database
from shitsuji.web import Backend, create_app

from .web_support import PASSWORD, memory_engine, serving

SECRET = "test-channel-secret"
TOKEN = "test-channel-token"
WIFE, HUSBAND, STRANGER, GROUP = "U" + "a" * 32, "U" + "b" * 32, "U" + "c" * 32, "C" + "d" * 32
_ids = itertools.count(1)


def signature(body: bytes, secret: str = SECRET) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


def body_of(*events: dict[str, Any]) -> bytes:
    return json.dumps({"destination": "Ubot", "events": list(events)}, ensure_ascii=False).encode()


def event(
    kind: str, user: str, *, group: str | None = None, reply_token: str | None = None, **extra: Any
) -> dict[str, Any]:
    source = (
        {"type": "group", "groupId": group, "userId": user} if group else {"type": "user", "userId": user}
    )
    found: dict[str, Any] = {
        "type": kind,
        "mode": "active",
        "timestamp": int(time.time() * 1000),
        "webhookEventId": f"01TESTEVENT{next(_ids):015d}",
        "deliveryContext": {"isRedelivery": False},
        "source": source,
        **extra,
    }
    if reply_token is not None:
        found["replyToken"] = reply_token
    return found


def text_event(user: str, text: str, **kwargs: Any) -> dict[str, Any]:
    message = {"id": str(next(_ids)), "type": "text", "text": text, "quoteToken": "q"}
    return event("message", user, message=message, **kwargs)


def postback_event(user: str, data: str, **kwargs: Any) -> dict[str, Any]:
    return event("postback", user, postback={"data": data}, **kwargs)


class Script:
    """The model: the router always says ``task``; every other request takes the next scripted response
    (a plain "はい" when the script is used up)."""

    def __init__(self) -> None:
        self.queue: deque[ModelResponse] = deque()
        self.requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ModelResponse:
        if request.max_tokens == 5:
            return text_response("task")
        self.requests.append(request)
        return self.queue.popleft() if self.queue else text_response("はい")

    def then(self, *responses: ModelResponse) -> Script:
        self.queue.extend(responses)
        return self


@dataclass
class LineSite:
    url: str
    fake: FakeLineAPI
    line: LineApp
    backend: Backend
    script: Script
    db: str  # a SQLite path or a PostgreSQL URL
    client: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=10))

    def post(self, *events: dict[str, Any], sign: Callable[[bytes], str] = signature) -> httpx.Response:
        body = body_of(*events)
        return self.client.post(
            f"{self.url}/line/webhook",
            content=body,
            headers={"X-Line-Signature": sign(body), "Content-Type": "application/json"},
        )

    def link(self, user: str, member: str, household: str = "futari") -> None:
        code = self.line.links.new_code(household, member)
        assert self.line.links.redeem(user, code) is not None

    def say(self, user: str, text: str, **kwargs: Any) -> dict[str, Any]:
        """Post a text event with a fresh reply token; the event."""
        chat = kwargs.get("group") or user
        sent = text_event(user, text, reply_token=self.fake.reply_token(chat), **kwargs)
        assert self.post(sent).status_code == 200
        return sent

    def settled(self, timeout: float = 20.0) -> None:
        """Wait until the worker has answered (or given up on) every stored event."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = self.line.inbox.counts()
            if not counts.get("pending") and not counts.get("running"):
                return
            time.sleep(0.02)
        raise AssertionError(f"events still waiting: {self.line.inbox.counts()}")

    def answers(self, chat: str) -> list[str]:
        return [text for sent in self.fake.answers_to(chat) for text in sent.texts()]


def make_household(db: str | Path) -> None:
    store = HouseholdStore(database(db))
    if not store.households():
        store.create("futari", ["wife", "husband"])
        store.create("tonari", ["neighbour"])
    store.close()


def make_butler(db: str | Path, script: Script, extra_tools: Sequence[Tool] = ()) -> Butler:
    """A butler over ``db`` (SQLite or PostgreSQL), its memories there too."""
    return Butler(
        database(db), memory_engine(db), ScriptedModel(script), panels=True, extra_tools=extra_tools
    )


@contextmanager
def line_site(
    db: str | Path, *, run_worker: bool = True, thread: bool = False, extra_tools: Sequence[Tool] = ()
) -> Iterator[LineSite]:
    """``thread``: the worker in its own thread over its own butler, as ``shitsuji serve`` runs it."""
    make_household(db)
    script = Script()
    with FakeLineAPI(TOKEN) as fake:
        backend = Backend(make_butler(db, script, extra_tools))
        for user in ("wife", "husband"):
            backend.accounts.set_password("futari", user, PASSWORD)
        own = (lambda: make_butler(db, script, extra_tools)) if thread else None
        settings = LineSettings(SECRET, TOKEN, fake.url, 1000.0)
        line = LineApp(backend.butler, settings, run_worker=run_worker, worker_butler=own)
        with serving(create_app(backend, line=line)) as url:
            site = LineSite(url, fake, line, backend, script, str(db))
            try:
                yield site
            finally:
                site.client.close()
        line.close()
        backend.close()
        backend.memory.store.close()
