"""Recall's candidate rows on PostgreSQL read each first vector from the model's vector table (``_pg_rows``).

The search has just read those rows (their pages are in shared buffers), where ``embeddings`` — whose
2 KB values sit in TOAST — had not been touched: at 1M memories that read was most of a recall's page
reads from outside the buffers. What is checked: the vector given for a candidate is the vector table's
row the search ranked by (made to differ from ``embeddings`` here, so reading ``embeddings`` fails the
test), multi-chunk memories give their first chunk, a live memory whose derived row is missing still
gets its vector from ``embeddings``, a forgotten one none, and before any search (the model's table not
looked up) the answer is the same from ``embeddings``.
"""

from __future__ import annotations

import numpy as np

from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.store import database

SCOPE = "household/futari/user/wife"


def test_first_vectors_come_from_the_rows_the_search_read(pg_url: str) -> None:
    db = database(pg_url)
    db.ensure(MEMORY_SCHEMA)
    engine = MemoryEngine(PostgresMemoryStore(db), HashEmbedder())
    long = engine.remember("牛乳は成城石井で買う。 The milk comes from Seijo Ishii.", SCOPE).memory
    short = engine.remember("紅茶はダージリンが好き", SCOPE).memory
    missing = engine.remember("The dentist is on Friday at ten", SCOPE).memory
    gone = engine.remember("Coffee beans from the market", SCOPE).memory
    engine.forget(gone.id)
    store, model = engine.store, engine.embedder.model_id
    assert isinstance(store, PostgresMemoryStore)
    ids = [long.id, short.id, missing.id, gone.id]
    two = np.random.default_rng(25).standard_normal((2, 256)).astype(np.float32)
    store.put_vectors(model, [(long.id, two / np.linalg.norm(two, axis=1, keepdims=True))])  # two chunks
    before = store.vectors_of(model, ids)  # from ``embeddings``
    assert store.memories_with_vectors(ids, model)[1].keys() == before.keys()  # no search yet: same answer
    assert engine.recall("milk", SCOPE, k=2)  # the model's vector table is known from here on
    table = db.execute("SELECT 'memory_vectors_' || rowid FROM memory_vector_models").fetchone()[0]
    assert db.execute(f"SELECT count(*) FROM {table} WHERE chunk > 0").fetchone()[0] > 0  # several chunks
    # the vector table's copy made to differ from ``embeddings``' (the search ranks by the former)
    db.execute(
        f"UPDATE {table} SET embedding = embedding * "
        "array_fill(-1, ARRAY[vector_dims(embedding)])::real[]::vector WHERE chunk = 0"
    )
    rowid = db.execute("SELECT rowid FROM memories WHERE id = ?", (missing.id,)).fetchone()[0]
    db.execute(f"DELETE FROM {table} WHERE memory_rowid = ?", (rowid,))  # not derived yet
    rows, vectors = store.memories_with_vectors(ids, model)
    assert set(rows) == set(ids) and rows == store.get_many(ids)
    assert set(vectors) == {long.id, short.id, missing.id}  # a forgotten memory's vector is not read
    for memory in (long, short):
        assert vectors[memory.id].dtype == np.float32
        assert np.array_equal(vectors[memory.id], -before[memory.id])
    assert np.allclose(before[long.id], two[0] / np.linalg.norm(two[0]))  # the first chunk
    assert np.array_equal(vectors[missing.id], before[missing.id])  # from ``embeddings``
    assert store.memories_with_vectors(ids, "another-model")[1] == {}
    assert store.memories_with_vectors(ids, None) == (rows, {})
