"""Keys as meaning reach the facts a household already has, and the keys of a repeat are kept (issue 23).

A keyed fact stored before its keys moved its vector (kv26) has the vector of its words alone: migration
``0027_rk26_keyed_vectors_again`` marks it, and the background indexer a server starts embeds it again with
its keys — no ``reindex``; a fact without keys keeps its vector bit for bit. Remembering the same words again
with new keys merges them into the stored fact's keys (the stored ones first, at most ``MAX_KEYS``), indexes
its terms and embeds it again, in one write with its audit row. Both engines, English and Japanese keys."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from shitsuji.audit import AuditLog
from shitsuji.memory import HashEmbedder, MemoryEngine
from shitsuji.memory._embedding import embed_rows
from shitsuji.memory._open import memory_store
from shitsuji.memory._records import MAX_KEYS
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

from .conftest import Clock

KEN = "household/futari/user/ken"
NOTE = "Ken is allergic to shellfish, especially shrimp."
KEYS = ("アレルギー", "甲殻類", "shellfish allergy")
PLAIN = "ケンは市役所の税務課で働いている"
EMBEDDER = HashEmbedder()


def _vector(content: str, keys: tuple[str, ...]) -> np.ndarray:
    return embed_rows(EMBEDDER, [(content, None, keys)])[0]


def _stored(engine: MemoryEngine, memory_id: str) -> bytes:
    """The fact's stored vector (``embeddings``), as bytes."""
    row = engine.store.database.execute(
        "SELECT e.vectors FROM embeddings e JOIN memories m ON m.rowid = e.memory_rowid WHERE m.id = ?",
        (memory_id,),
    ).fetchone()
    return bytes(row[0])


def _nearest(engine: MemoryEngine, vector: np.ndarray) -> tuple[str, float]:
    """The nearest live fact by the store's vector search (PostgreSQL: its derived vector table)."""
    best = engine.store.vector_search(EMBEDDER.model_id, vector[0], [KEN], 1)[0]
    return best.memory_id, best.score


def _as_before(target: str, clock: Clock) -> tuple[str, str, bytes]:
    """A database as the version before kv26 left it: a keyed fact whose vector is its words' alone,
    and a fact without keys; its migration row gone. The ids and the keyless fact's stored vector."""
    db = open_database(target, MEMORY_SCHEMA)
    engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock)
    keyed = engine.remember(NOTE, KEN, keys=list(KEYS)).memory
    plain = engine.remember(PLAIN, KEN).memory
    engine.store.put_vectors(EMBEDDER.model_id, [(keyed.id, _vector(NOTE, ()))])  # the old texts
    plain_vector = _stored(engine, plain.id)
    db.execute("DELETE FROM schema_migrations WHERE name = '0027_rk26_keyed_vectors_again'")
    engine.store.close()
    db.close()
    return keyed.id, plain.id, plain_vector


def test_a_keyed_fact_from_before_gets_its_keyed_vector_without_a_reindex(target: str, clock: Clock) -> None:
    keyed_id, plain_id, plain_vector = _as_before(target, clock)
    db = open_database(target, MEMORY_SCHEMA)  # migrates
    try:
        engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock)
        old, new = _vector(NOTE, ()), _vector(NOTE, KEYS)
        assert engine.pending() == 1
        assert _stored(engine, keyed_id) == old.tobytes()  # recall keeps the old vector until then
        assert _nearest(engine, old) == (keyed_id, pytest.approx(1.0, abs=1e-2))  # caches loaded
        indexer = engine.index_in_background()  # what ``serve`` starts
        indexer.join(120)
        assert not indexer.is_alive()
        assert engine.pending() == 0
        assert _stored(engine, keyed_id) == new.tobytes()
        assert _nearest(engine, new) == (keyed_id, pytest.approx(1.0, abs=1e-2))
        assert _stored(engine, plain_id) == plain_vector  # bit for bit
        engine.store.close()
    finally:
        db.close()


@pytest.fixture
def audited(target: str, clock: Clock) -> Iterator[tuple[MemoryEngine, AuditLog]]:
    db = open_database(target, MEMORY_SCHEMA)
    audit = AuditLog(db)
    engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock, audit=audit)
    yield engine, audit
    engine.store.close()
    db.close()


@pytest.mark.parametrize(
    ("first", "again", "merged"),
    [
        (("shellfish", "allergy"), ("エビ", "allergy", "甲殻類"), ("shellfish", "allergy", "エビ", "甲殻類")),
        (("アレルギー",), ("アレルギー", "crustacean", "えび"), ("アレルギー", "crustacean", "えび")),
    ],
)
def test_an_exact_repeat_with_new_keys_keeps_them(
    audited: tuple[MemoryEngine, AuditLog],
    first: tuple[str, ...],
    again: tuple[str, ...],
    merged: tuple[str, ...],
) -> None:
    engine, audit = audited
    stored = engine.remember(NOTE, KEN, keys=list(first)).memory
    assert not engine.recall(
        again[-1], KEN, semantic=False
    )  # the new key's words: not found yet (caches loaded)
    result = engine.remember(NOTE, KEN, keys=list(again))
    assert result.duplicate and result.memory.id == stored.id and result.memory.keys == merged
    row = engine.store.get(stored.id)
    assert row is not None and row.keys == merged and row.embedding_model == EMBEDDER.model_id
    assert [h.memory.id for h in engine.recall(again[-1], KEN, semantic=False)] == [stored.id]
    assert _stored(engine, stored.id) == _vector(NOTE, merged).tobytes()
    assert _nearest(engine, _vector(NOTE, merged)) == (stored.id, pytest.approx(1.0, abs=1e-2))
    event = audit.events(limit=1)[0]
    assert (event.action, event.subject, event.detail) == (
        "memory.keys_added",
        stored.id,
        {"keys": len(merged) - len(first)},
    )


def test_a_repeat_keeps_the_stored_keys_first_up_to_the_limit(audited: tuple[MemoryEngine, AuditLog]) -> None:
    engine, _ = audited
    first = [f"key{i}" for i in range(MAX_KEYS - 2)]
    engine.remember(NOTE, KEN, keys=first)
    result = engine.remember(NOTE, KEN, keys=["key0", "エビ", "甲殻類", "shrimp"])
    assert result.memory.keys == (*first, "エビ", "甲殻類")


def test_a_repeat_without_new_keys_only_touches_the_fact(audited: tuple[MemoryEngine, AuditLog]) -> None:
    engine, audit = audited
    stored = engine.remember(NOTE, KEN, keys=list(KEYS)).memory
    vector = _stored(engine, stored.id)
    for keys in (None, ["甲殻類"]):
        result = engine.remember(NOTE, KEN, keys=keys, importance=0.9)
        assert result.duplicate and result.memory.keys == KEYS and result.memory.importance == 0.9
    assert _stored(engine, stored.id) == vector
    assert audit.events(limit=1)[0].action == "memory.remembered"


def test_no_background_embedding_over_another_models_vectors(target: str, clock: Clock) -> None:
    """Vectors of another model (``--embedder hash reindex``, then serve with another embedder): the server
    embeds nothing in the background — every row again is ``reindex``'s, which recall's warning names."""
    _as_before(target, clock)
    db = open_database(target, MEMORY_SCHEMA)
    try:
        other = MemoryEngine(memory_store(db), HashEmbedder(dim=64), clock=clock)
        indexer = other.index_in_background()
        indexer.join(120)
        assert not indexer.is_alive() and other.pending() == 2
        other.store.close()
    finally:
        db.close()
