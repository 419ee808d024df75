"""The event loop never waits on an embedding: while a memory search is stuck in the embedder, the app
still answers on its loop (health) — on main 71175e5 the search ran its hybrid recall inside the
route's ``async def`` and every other request waited for it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shitsuji.household import Butler, HouseholdStore
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._embedders import Vector
from shitsuji.store import database
from shitsuji.web import Backend, create_app

from .web_support import HOME, PASSWORD, serving

WAIT_S = 60.0  # generous: only a loop held by the embedder never answers


class GatedEmbedder(HashEmbedder):
    """A query embedding that waits for the test to let it go (as a slow model on a busy CPU would)."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str) -> Vector:
        if self.armed:
            self.entered.set()
            self.release.wait(WAIT_S * 2)
        return super().embed_query(text)

    def embed_queries(self, texts: list[str]) -> list[Vector]:  # a Japanese question with its words (ja28)
        if self.armed:
            self.entered.set()
            self.release.wait(WAIT_S * 2)
        return [super(GatedEmbedder, self).embed_query(t) for t in texts]


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[tuple[str, GatedEmbedder]]:
    db = tmp_path / "loop.db"
    store = HouseholdStore(database(db))
    store.create(HOME, ["wife"])
    store.close()
    embedder = GatedEmbedder()
    backend = Backend(Butler(database(db), MemoryEngine(open_store(str(db)), embedder), None, panels=True))
    backend.accounts.set_password(HOME, "wife", PASSWORD)
    try:
        with serving(create_app(backend)) as url:
            yield url, embedder
    finally:
        embedder.release.set()
        backend.close()
        backend.memory.store.close()


def test_a_search_stuck_in_the_embedder_does_not_hold_the_other_requests(
    gated: tuple[str, GatedEmbedder],
) -> None:
    url, embedder = gated
    with httpx.Client(base_url=url, timeout=WAIT_S) as client:
        signed = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": HOME})
        assert signed.status_code == 200, signed.text
        embedder.armed = True
        searched: list[int] = []
        search = threading.Thread(
            target=lambda: searched.append(client.get("/api/memories", params={"q": "誕生日"}).status_code)
        )
        search.start()
        assert embedder.entered.wait(WAIT_S), "the search never reached the embedder"
        try:
            health = httpx.get(f"{url}/api/health", timeout=WAIT_S)  # answered on the loop meanwhile
            assert health.status_code == 200 and health.json()["ok"] is True
            assert search.is_alive()  # the search is still waiting on its embedding
        finally:
            embedder.release.set()
        search.join(WAIT_S)
    assert searched == [200]
