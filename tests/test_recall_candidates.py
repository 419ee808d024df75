"""Recall reads its candidates' rows and vectors together (``MemoryStore.candidates``), on both engines.

PostgreSQL answers in one statement (``memories`` joined to the vector table the search read, ``_pg_rows``);
it must give what ``get_many`` and ``vectors_of`` give apart: every row asked for, live or forgotten, and the first
chunk's vector of the live ones in the asked model only.
"""

from __future__ import annotations

import numpy as np

from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import database

SCOPE = "household/futari/user/wife"


def test_candidates_are_the_rows_and_the_live_ones_vectors(target: str) -> None:
    db = database(target)
    db.ensure(MEMORY_SCHEMA)
    engine = MemoryEngine(memory_store(db), HashEmbedder())
    kept = engine.remember("牛乳は成城石井で買う。" * 40 + " The milk comes from Seijo Ishii.", SCOPE).memory
    gone = engine.remember("紅茶はダージリン", SCOPE).memory
    engine.forget(gone.id)
    assert engine.recall("牛乳", SCOPE, k=2)  # the SQLite store's vectors are those a search had at hand
    store, model = engine.store, engine.embedder.model_id
    ids = [kept.id, gone.id, "no-such-id"]
    rows, vectors = store.memories_with_vectors(ids, model)
    assert rows == store.get_many(ids) and set(rows) == {kept.id, gone.id}
    apart = store.vectors_of(model, ids)
    assert set(vectors) == set(apart) == {kept.id}  # a forgotten memory's vector is not read
    assert np.array_equal(vectors[kept.id], apart[kept.id])
    assert store.memories_with_vectors(ids, "another-model")[1] == {}
    assert store.memories_with_vectors(ids, None) == (rows, {})
    assert store.memories_with_vectors([], model) == ({}, {})
