"""Shared set-up for the web app's tests: a household with two members (and a neighbour household),
the real app over a temporary database, and a real uvicorn server on a loopback port.

The model is the real Anthropic SDK talking to ``FakeMessagesAPI`` (the wire protocol, streaming
included), or ``None`` for the "no model configured" case.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import AnthropicModel, Model
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database
from shitsuji.web import Backend, create_app

PASSWORD = "correct horse 馬"
HOME = "futari"
NEIGHBOUR = "tonari"


@dataclass
class Site:
    """The app under test and what it runs on."""

    app: FastAPI
    backend: Backend
    db: str  # a SQLite path or a PostgreSQL URL

    def close(self) -> None:
        self.backend.close()
        self.backend.memory.store.close()


def make_site(
    db: str | Path,
    model: Model | None,
    *,
    secure_cookies: bool | None = None,
) -> Site:
    """Households futari (wife, husband) and tonari (neighbour), everyone's password ``PASSWORD``.

    ``db`` is a SQLite path or a PostgreSQL URL; the memories live there too."""
    store = HouseholdStore(database(db))
    if not store.households():
        store.create(HOME, ["wife", "husband"])
        store.create(NEIGHBOUR, ["neighbour"])
    store.close()
    backend = Backend(Butler(database(db), memory_engine(db), model, panels=True))
    for home, user in ((HOME, "wife"), (HOME, "husband"), (NEIGHBOUR, "neighbour")):
        backend.accounts.set_password(home, user, PASSWORD)
    return Site(create_app(backend, secure_cookies=secure_cookies), backend, str(db))


def memory_engine(db: str | Path) -> MemoryEngine:
    """The memories of a test's butler: in its database, SQLite or PostgreSQL (hash embedder)."""
    return MemoryEngine(open_store(str(db)), HashEmbedder())


def fake_model(url: str) -> AnthropicModel:
    return AnthropicModel(api_key="test-key", base_url=url, max_retries=0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: FastAPI, **options: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on a free loopback port (``options``: more uvicorn settings); yields its base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", **options)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
