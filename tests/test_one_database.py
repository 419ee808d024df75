"""One database per process and target (issue 19): every store the butler, the web app and the LINE
channel hold is handed the same ``Database``; on SQLite that is one connection to the file, on
PostgreSQL one pool."""

from __future__ import annotations

import os

from shitsuji.household import Butler, HouseholdStore
from shitsuji.line import LineApp, LineSettings
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.memory import ExtractionSettings, HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database, is_postgres, pools
from shitsuji.web import Backend


def _open_files(path: str) -> int:
    """How many file descriptors of this process point at ``path``."""
    real = os.path.realpath(path)
    return sum(1 for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == real)


def test_every_store_of_a_process_shares_one_database(target: str) -> None:
    db = database(target)
    HouseholdStore(db).create("futari", ["wife", "husband"])
    memory = MemoryEngine(open_store(target), HashEmbedder())
    # memory's tables and rows on the same file
    memory.remember("ゴミの日は火曜日", "household/futari/shared")
    butler = Butler(db, memory, ScriptedModel([text_response("はい")]), extraction=ExtractionSettings())
    backend = Backend(butler)
    line = LineApp(butler, LineSettings("secret", "token", "http://127.0.0.1:9", 10.0), run_worker=False)
    stores = [
        butler.store,
        butler.segments,
        butler.proposals,
        butler.conversations,
        butler.claims,
        butler.audit,
        butler.service.extraction,
        backend.accounts,
        backend.invitations,
        backend.line_links,
        line.links,
    ]
    if is_postgres(target):
        assert pools() == 1
    else:
        assert _open_files(target) == 1
    assert {id(s._conn) for s in stores} == {id(db)}  # type: ignore[union-attr]
    assert memory.store.database is db
    assert database(target) is db
