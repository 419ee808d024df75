"""SQLite's vector index loads scope by scope (``memory._scope_vectors``): a fresh process that
recalls in one scope reads that scope's vectors (and its ancestors'), not the database's; what it
finds is what an exact search over those scopes' live rows finds, rows written by another process
since included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shitsuji.memory import MemoryEngine, NewMemory, open_store
from shitsuji.memory._embedders import HashEmbedder
from shitsuji.memory._sqlite_store import SQLiteMemoryStore
from shitsuji.memory._vector_snapshots import MIN_VECTORS, snapshot_path

SCOPES = {"p": 5, "p/a": 40, "p/b": 40, "q/c": 60}


def _fill(db: Path, counts: dict[str, int]) -> None:
    store = open_store(db)
    engine = MemoryEngine(store, HashEmbedder())
    engine.add_many(
        NewMemory(content=f"{scope} note {i} about topic{i % 7} and 品目{i}", scope=scope)
        for scope, n in counts.items()
        for i in range(n)
    )
    engine.index_pending()
    store.close()


def _exact(db: Path, scopes: list[str], query: np.ndarray, k: int) -> list[float]:
    import sqlite3

    rows = sqlite3.connect(db).execute(
        f"SELECT e.vectors FROM embeddings e JOIN memories m ON m.rowid = e.memory_rowid "
        f"WHERE m.deleted_at IS NULL AND m.scope IN ({','.join('?' * len(scopes))})",
        scopes,
    )
    scores = sorted((float(np.frombuffer(blob, dtype=np.float32) @ query) for (blob,) in rows), reverse=True)
    return scores[:k]


def _loaded(store: SQLiteMemoryStore) -> set[str]:
    return set(store._vectors["hash-256"].indexes)


def test_a_fresh_store_loads_only_the_searched_scopes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _fill(db, SCOPES)
    store = open_store(db)
    assert isinstance(store, SQLiteMemoryStore)
    try:
        query = HashEmbedder().embed_query("p/a note 3 about topic3")
        found = store.vector_search("hash-256", query, ["p/a", "p"], 8)
        assert _loaded(store) == {"p/a", "p"}
        assert [m.score for m in found] == pytest.approx(_exact(db, ["p/a", "p"], query, 8), abs=1e-6)
        assert all(m.memory_id for m in found)

        other = open_store(db)  # another process writes to a loaded and an unloaded scope
        engine = MemoryEngine(other, HashEmbedder())
        new_a = engine.remember("ゼブラの新しいメモ zebra stripes", "p/a").memory.id
        new_b = engine.remember("ゼブラの別のメモ zebra crossing", "p/b").memory.id
        other.close()

        zebra = HashEmbedder().embed_query("zebra ゼブラ")
        assert store.vector_search("hash-256", zebra, ["p/a", "p"], 1)[0].memory_id == new_a  # topped up
        assert _loaded(store) == {"p/a", "p"}
        assert store.vector_search("hash-256", zebra, ["p/b", "p"], 1)[0].memory_id == new_b  # loaded now
        assert _loaded(store) == {"p/a", "p", "p/b"}
        both = store.vector_search("hash-256", zebra, ["p/a", "p/b"], 2)
        assert {m.memory_id for m in both} == {new_a, new_b}
        assert set(store.vectors_of("hash-256", [new_a, new_b])) == {new_a, new_b}
    finally:
        store.close()


def test_forgotten_rows_leave_the_loaded_scope_and_stay_gone_in_a_fresh_one(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _fill(db, SCOPES)
    store = open_store(db)
    engine = MemoryEngine(store, HashEmbedder())
    try:
        query = HashEmbedder().embed_query("q/c note 11 about topic4")
        best = store.vector_search("hash-256", query, ["q/c"], 1)[0].memory_id
        engine.forget(best)
        assert best not in [m.memory_id for m in store.vector_search("hash-256", query, ["q/c"], 10)]
    finally:
        store.close()
    fresh = open_store(db)
    try:
        found = fresh.vector_search("hash-256", query, ["q/c"], 10)
        assert best not in [m.memory_id for m in found]
        assert [m.score for m in found] == pytest.approx(_exact(db, ["q/c"], query, 10), abs=1e-6)
    finally:
        fresh.close()


def test_a_large_scope_is_mapped_from_its_own_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _fill(db, {"big": MIN_VECTORS, "small": 20})
    query = HashEmbedder().embed_query("big note 42 about topic0")
    expected = _exact(db, ["big"], query, 5)
    for _ in range(2):  # the first cold store loads the rows and writes the file, the second maps it
        store = open_store(db)
        found = store.vector_search("hash-256", query, ["big", "small"], 5)
        store.close()
        assert [m.score for m in found] == pytest.approx(expected, abs=1e-6)
    big, small = (snapshot_path(str(db), "hash-256", s) for s in ("big", "small"))
    assert big is not None and big.exists()
    assert small is not None and not small.exists()  # small scopes load from their rows
    assert "big" not in big.name  # files are named by a hash: scope names hold member ids
