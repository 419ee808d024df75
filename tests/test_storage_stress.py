"""Many writers on one process's database at once, on both engines (issue 19).

Threads and the event loop write through the audit log, proposals, the household store and memory
together, the way the web app's loop and the ``remember`` tool's worker thread do: every write that
returned is stored, none fails with SQLite's "within a transaction", and no reader ever sees a row
that another thread wrote but had not committed (a writer here rolls back every row it writes).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from shitsuji.agent import Proposals, ToolContext
from shitsuji.audit import AuditEvent, AuditLog
from shitsuji.household import HouseholdStore
from shitsuji.household._tools import add_todo
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database

THREADS = 4
EACH = 60  # writes of each kind per thread (and on the loop)
WIFE = ToolContext(
    deps=None, user="wife", scope="household/futari/user/wife", channel="app", household="futari"
)


class _Rollback(Exception):
    pass


def _work(
    who: str, audit: AuditLog, proposals: Proposals, store: HouseholdStore, memory: MemoryEngine
) -> int:
    done = 0
    for n in range(EACH):
        audit.record(AuditEvent(action="stress.wrote", actor=who, household="futari", subject=f"{who}-{n}"))
        proposals.propose(add_todo, {"title": f"{who} {n}"}, WIFE)
        store.add_todo("futari", f"{who} {n}", by="wife")
        if n % 6 == 0:
            memory.remember(f"{who} の覚え書き {n}", "household/futari/shared")
        done += 1
    return done


def _phantoms(audit: AuditLog, stop: threading.Event) -> None:
    """Write rows that never commit, until told to stop."""
    db = audit._conn
    while not stop.is_set():
        try:
            with db.write() as tx:
                tx.execute(
                    "INSERT INTO audit_events (at, actor, action) VALUES ('2026-01-01T00:00:00', 'ghost', 'stress.uncommitted')"
                )
                stop.wait(0.001)
                raise _Rollback
        except _Rollback:
            pass


def test_threads_and_the_event_loop_write_at_once_and_lose_nothing(
    target: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = database(target)
    audit = AuditLog(db)
    proposals = Proposals(db, audit=audit)
    store = HouseholdStore(db)
    store.create("futari", ["wife", "husband"])
    memory = MemoryEngine(open_store(target), HashEmbedder(), audit=audit)
    stop = threading.Event()
    seen_ghosts: list[int] = []

    def read_while_writing() -> None:
        while not stop.is_set():
            ghosts = [e for e in audit.events(limit=50) if e.action == "stress.uncommitted"]
            seen_ghosts.append(len(ghosts))

    async def on_the_loop() -> int:
        with ThreadPoolExecutor(THREADS + 2) as pool:
            side = [pool.submit(_phantoms, audit, stop), pool.submit(read_while_writing)]
            workers = [pool.submit(_work, f"t{i}", audit, proposals, store, memory) for i in range(THREADS)]
            try:
                loop_done = 0
                for n in range(EACH):  # the loop's own writes, between its awaits
                    audit.record(
                        AuditEvent(
                            action="stress.wrote", actor="loop", household="futari", subject=f"loop-{n}"
                        )
                    )
                    proposals.propose(add_todo, {"title": f"loop {n}"}, WIFE)
                    store.add_todo("futari", f"loop {n}", by="wife")
                    loop_done += 1
                    await asyncio.sleep(0)
                done = sum(w.result(timeout=600) for w in workers) + loop_done
            finally:  # a failing writer fails the test instead of leaving the others running
                stop.set()
            for f in side:
                f.result(timeout=60)
        return done

    with caplog.at_level(logging.WARNING):
        done = asyncio.run(on_the_loop())
    writers = THREADS + 1
    assert done == writers * EACH
    assert "within a transaction" not in caplog.text and "could not record" not in caplog.text
    assert len([e for e in audit.events(limit=100_000) if e.action == "stress.wrote"]) == writers * EACH
    assert len(proposals.list(household="futari")) == writers * EACH
    assert len(store.todos("futari")) == writers * EACH
    assert len(list(memory.list_memories("household/futari/shared"))) == THREADS * len(range(0, EACH, 6))
    assert seen_ghosts and max(seen_ghosts) == 0  # nobody read a row that was never committed
