"""One chat turn in the process, on each engine: the statements it sends, its time and its CPU.

Part of ``shitsuji bench scale``: the same plain turn the throughput part sends (the scripted model
of ``bench web``, which answers at once) through the one conversation service, first counted where
the statements arrive (``_statements``: SQLite's trace, a wire proxy in front of PostgreSQL), then
timed without the proxy: wall ms per turn, the process's CPU ms per turn, and the PostgreSQL
server's CPU ms per turn (its processes' ``/proc`` times; None when the server is not local).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from typing import Any

from ..household import Butler, HouseholdStore
from ..memory import MEMORY_SCHEMA, MemoryEngine, load_embedder, memory_store
from ..store import close_databases, close_pools, is_postgres
from ..store import database as shared
from ._cpu import postgres_server_pid, server_cpu_seconds
from ._statements import counting, watch
from .web import CHAT_LINES, scripted_model

HOUSEHOLD = "turns"
MEMBER = "counted"
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
MEMORY_TABLES = re.compile(r"\b(memories|embeddings|memory_\w+|index_state)\b")


def _butler(target: str, embedder: str) -> Butler:
    db = shared(target)
    store = HouseholdStore(db)
    if not any(h.name == HOUSEHOLD for h in store.households()):
        store.create(HOUSEHOLD, [MEMBER])
    db.ensure(MEMORY_SCHEMA)
    memory = MemoryEngine(memory_store(db), load_embedder(embedder))
    memory.remember("牛乳は成城石井で買う", f"household/{HOUSEHOLD}/user/{MEMBER}")
    return Butler(db, memory, scripted_model())


def _turn(butler: Butler, i: int) -> None:
    ctx = butler.member(MEMBER, "app", household=HOUSEHOLD)
    turn = butler.service.begin(ctx, f"{CHAT_LINES[i % len(CHAT_LINES)]}（{i}）", key=f"k{i}")

    async def run() -> Any:
        return [event async for event in butler.service.events(turn)][-1]

    last = asyncio.run(run())
    if type(last).__name__ != "Finished":
        raise RuntimeError(f"a counted turn failed: {last}")


def _let_go() -> None:
    """Close what this part opened (the chat part's app processes open their own)."""
    close_pools()
    close_databases()


def count_turn(target: str, *, embedder: str = "hash", turns: int = 5) -> dict[str, Any]:
    """Statements per plain turn (the median over ``turns`` turns after the conversation's first)."""
    with counting(target) as (url, statements):
        butler = _butler(url, embedder)
        if not is_postgres(url):
            watch(shared(url), statements)
        _turn(butler, 0)
        every, outside, memory = [], [], []
        for i in range(1, turns + 1):
            statements.mark()
            _turn(butler, i)
            sent = statements.snapshot()
            every.append(len(sent))
            recall = [s for s in sent if MEMORY_TABLES.search(s.sql)]
            memory.append(len(recall))
            outside.append(
                sum(1 for s in sent if s not in recall and not s.sql.lstrip().upper().startswith(CONTROL))
            )
        butler.close()
        _let_go()
    return {
        "statements": statistics.median(every),
        "statements_outside_recall_without_begin_commit": statistics.median(outside),
        "recall_statements": statistics.median(memory),
    }


def time_turn(target: str, *, embedder: str = "hash", turns: int = 40) -> dict[str, Any]:
    """Wall and CPU ms per plain turn in this process (the database's CPU beside it on PostgreSQL)."""
    butler = _butler(target, embedder)
    server = postgres_server_pid(target) if is_postgres(target) else None
    _turn(butler, 0)
    walls = []
    cpu0, server0 = time.process_time(), server_cpu_seconds(server)
    for i in range(1, turns + 1):
        started = time.perf_counter()
        _turn(butler, i)
        walls.append(time.perf_counter() - started)
    cpu, server1 = time.process_time() - cpu0, server_cpu_seconds(server)
    butler.close()
    _let_go()
    return {
        "turn_p50_ms": round(statistics.median(walls) * 1000, 2),
        "app_cpu_ms_per_turn": round(cpu / turns * 1000, 2),
        "db_cpu_ms_per_turn": (
            round((server1 - server0) / turns * 1000, 2)
            if server0 is not None and server1 is not None
            else None
        ),
    }
