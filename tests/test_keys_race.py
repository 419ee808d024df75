"""Writers bringing new keys to the same exact repeat at once all keep theirs (issue 23).

A repeat's keys are merged into the stored fact's: a writer reads the fact (its dedupe check), embeds it
with the merged keys, then writes. Two writers that both read before either wrote used to merge into the
same stored keys, and the last write won: the other's keys were lost. Free-running writers meet in that
window only now and then — a race cannot be forced every time that way — so here they meet at the
product's own seam, the embedder (each writer calls it between its read and its write), on a barrier:
every writer has read the same stored keys before any writes, the interleaving that lost keys, every run.
Each writer has its own database connection (PostgreSQL) or ``Database`` (SQLite), as separate
processes would; both engines. The merge is now made on the row held in the write (``held_keys``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from shitsuji.audit import AuditLog
from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._embedding import embed_rows
from shitsuji.memory._open import memory_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

from .conftest import Clock
from .test_keys_again import _stored

KEN = "household/futari/user/ken"
NOTE = "Ken is allergic to shellfish, especially shrimp."
STORED = ("アレルギー",)
NEW = (("crustacean",), ("えび",), ("甲殻類",))  # one writer's keys each


class MeetingEmbedder(HashEmbedder):
    """``HashEmbedder`` whose writers meet: once ``meet`` is set, each thread's second embedding (a repeat
    embeds its words, then the fact with the merged keys, before its write) waits for every writer's."""

    def __init__(self) -> None:
        super().__init__()
        self.meet: threading.Barrier | None = None
        self._calls = threading.local()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self._calls.n = getattr(self._calls, "n", 0) + 1
        if self.meet is not None and self._calls.n == 2:
            self.meet.wait()
        return super().embed_documents(texts)


def test_writers_bringing_keys_to_the_same_repeat_at_once_all_keep_theirs(target: str, clock: Clock) -> None:
    embedder = MeetingEmbedder()
    databases = [open_database(target, MEMORY_SCHEMA) for _ in NEW]
    engines = [MemoryEngine(memory_store(db), embedder, clock=clock, audit=AuditLog(db)) for db in databases]
    try:
        fact = engines[0].remember(NOTE, KEN, keys=list(STORED)).memory
        embedder.meet = threading.Barrier(len(NEW), timeout=120)
        failures: list[BaseException] = []

        def write(engine: MemoryEngine, keys: tuple[str, ...]) -> None:
            try:
                assert engine.remember(NOTE, KEN, keys=list(keys)).duplicate
            except BaseException as exc:  # reported below, in the test's thread
                failures.append(exc)

        threads = [threading.Thread(target=write, args=pair) for pair in zip(engines, NEW, strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert not failures and not any(t.is_alive() for t in threads)

        row = engines[0].store.get(fact.id)
        assert row is not None
        assert row.keys[:1] == STORED and sorted(row.keys[1:]) == sorted(k for keys in NEW for k in keys)
        assert row.embedding_model == embedder.model_id
        # the vector of the merged keys, and every writer's key found by its words
        assert (
            _stored(engines[0], fact.id) == embed_rows(HashEmbedder(), [(NOTE, None, row.keys)])[0].tobytes()
        )
        for (key,) in NEW:
            assert [h.memory.id for h in engines[0].recall(key, KEN, semantic=False)] == [fact.id]
        events = [e for e in AuditLog(databases[0]).events(limit=10) if e.action == "memory.keys_added"]
        assert sorted(e.detail["keys"] for e in events) == [1] * len(NEW)
    finally:
        for engine, db in zip(engines, databases, strict=True):
            engine.store.close()
            db.close()


@pytest.mark.parametrize("again", [("えび",), ("アレルギー", "えび")])
def test_a_repeat_whose_keys_another_writer_stored_meanwhile_only_touches(
    target: str, clock: Clock, again: tuple[str, ...]
) -> None:
    """The second writer finds its keys already stored by the first (read before, held in the write):
    no second audit row, the keys and vector as the first left them."""
    embedder = MeetingEmbedder()
    databases = [open_database(target, MEMORY_SCHEMA) for _ in range(2)]
    engines = [MemoryEngine(memory_store(db), embedder, clock=clock, audit=AuditLog(db)) for db in databases]
    try:
        fact = engines[0].remember(NOTE, KEN, keys=list(STORED)).memory
        embedder.meet = threading.Barrier(2, timeout=120)
        failures: list[BaseException] = []

        def write(engine: MemoryEngine) -> None:
            try:
                engine.remember(NOTE, KEN, keys=list(again))
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=write, args=(engine,)) for engine in engines]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert not failures
        row = engines[0].store.get(fact.id)
        assert row is not None and row.keys == ("アレルギー", "えび")
        events = [e for e in AuditLog(databases[0]).events(limit=10) if e.action == "memory.keys_added"]
        assert [e.detail["keys"] for e in events] == [1]
        assert (
            _stored(engines[0], fact.id) == embed_rows(HashEmbedder(), [(NOTE, None, row.keys)])[0].tobytes()
        )
    finally:
        for engine, db in zip(engines, databases, strict=True):
            engine.store.close()
            db.close()
