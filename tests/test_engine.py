"""The memory engine over a real database (a SQLite file, then PostgreSQL) and the deterministic hash embedder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._embedders import Matrix

from .conftest import Clock

WIFE = "household/futari/user/wife"
HUSBAND = "household/futari/user/husband"
HOME = "household/futari"


@pytest.fixture
def memory_target(target: str) -> str:
    """Every engine here runs on both engines."""
    return target


def contents(hits: Sequence[object]) -> list[str]:
    return [h.memory.content for h in hits]  # type: ignore[attr-defined]


def test_remember_stores_every_field(engine: MemoryEngine, clock: Clock) -> None:
    result = engine.remember(
        "妻は紅茶が好き",
        WIFE,
        category="preference",
        importance=0.8,
        provenance={"conversation": "c1", "message": 7},
    )
    assert not result.duplicate
    stored = engine.get(result.memory.id)
    assert stored.scope == WIFE and stored.category == "preference" and stored.importance == 0.8
    assert stored.source == "remembered" and stored.provenance == {"conversation": "c1", "message": 7}
    assert stored.created_at == clock.now and stored.embedding_model == "hash-256"
    assert len(stored.content_hash) == 64 and stored.deleted_at is None


def test_exact_duplicate_reports_the_existing_row(engine: MemoryEngine, clock: Clock) -> None:
    first = engine.remember("The wifi password is on the fridge", HOME, importance=0.3)
    clock.advance(days=1)
    again = engine.remember("the WiFi password is on the fridge.", HOME, importance=0.9)
    assert again.duplicate and again.memory.id == first.memory.id
    assert engine.get(first.memory.id).importance == 0.9  # refreshed, not added
    assert engine.get(first.memory.id).updated_at == clock.now
    assert sum(1 for _ in engine.list_memories()) == 1


def test_same_text_in_another_scope_is_not_a_duplicate(engine: MemoryEngine) -> None:
    engine.remember("紅茶が好き", WIFE)
    assert not engine.remember("紅茶が好き", HUSBAND).duplicate


def test_semantic_duplicate_over_threshold(engine: MemoryEngine) -> None:
    engine.remember("Allergic to shellfish, no shrimp or crab please", WIFE)
    near = engine.find_duplicate("allergic to shellfish: no shrimp or crab please!", WIFE)
    assert near is not None and near.similarity is not None and near.similarity >= 0.9
    assert engine.find_duplicate("Plays futsal on Thursdays", WIFE) is None


def test_each_spouse_recalls_own_and_shared_never_the_other(engine: MemoryEngine) -> None:
    engine.remember("紅茶はミルクティーが好き", WIFE)
    engine.remember("コーヒーはブラックが好き", HUSBAND)
    engine.remember("ゴミの日は月曜と木曜、好きな曜日", HOME)
    wife = contents(engine.recall("好き", WIFE, k=10))
    husband = contents(engine.recall("好き", HUSBAND, k=10))
    assert "紅茶はミルクティーが好き" in wife and "コーヒーはブラックが好き" not in wife
    assert "コーヒーはブラックが好き" in husband and "紅茶はミルクティーが好き" not in husband
    assert "ゴミの日は月曜と木曜、好きな曜日" in wife and "ゴミの日は月曜と木曜、好きな曜日" in husband
    assert contents(engine.recall("好き", HOME, k=10)) == ["ゴミの日は月曜と木曜、好きな曜日"]


def test_ancestors_rank_below_an_equal_own_match(engine: MemoryEngine) -> None:
    engine.remember("dentist appointment on friday", HOME)
    engine.remember("dentist appointment on friday", WIFE)
    hits = engine.recall("dentist appointment on friday", WIFE, k=2)
    assert [h.memory.scope for h in hits] == [WIFE, HOME]
    assert hits[0].score > hits[1].score


def test_recall_returns_hits_with_scores(engine: MemoryEngine) -> None:
    engine.remember("Ben plays the piano", WIFE, category="profile")
    [hit] = engine.recall("piano", WIFE, k=1)
    out = hit.to_json()
    assert {"id", "content", "scope", "category", "score"} <= out.keys()
    assert out["category"] == "profile" and out["score"] > 0


def test_forget_hides_restore_brings_back_purge_removes(engine: MemoryEngine) -> None:
    memory = engine.remember("沖縄出身", WIFE).memory
    engine.forget(memory.id)
    assert engine.recall("沖縄", WIFE) == []
    assert [m.id for m in engine.list_memories(deleted=True)] == [memory.id]
    engine.restore(memory.id)
    assert contents(engine.recall("沖縄", WIFE)) == ["沖縄出身"]
    engine.forget(memory.id)
    assert engine.purge() == 1
    with pytest.raises(NotFoundError, match="no memory"):
        engine.get(memory.id)


def test_forgotten_row_does_not_block_remembering_it_again(engine: MemoryEngine) -> None:
    first = engine.remember("likes natto", WIFE).memory
    engine.forget(first.id)
    second = engine.remember("likes natto", WIFE)
    assert not second.duplicate and second.memory.id != first.id


def test_expired_memories_are_not_recalled(engine: MemoryEngine, clock: Clock) -> None:
    engine.remember("working from home this week", WIFE, valid_until=clock.now.replace(day=5))
    assert contents(engine.recall("working from home", WIFE)) == ["working from home this week"]
    clock.advance(days=10)
    assert engine.recall("working from home", WIFE) == []


def test_id_prefix_resolves(engine: MemoryEngine) -> None:
    memory = engine.remember("prefix test", WIFE).memory
    assert engine.get(memory.id[:6]).id == memory.id
    with pytest.raises(NotFoundError):
        engine.get("zzzzzz")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": "   "}, "empty"),
        ({"text": "x" * 20_001}, "limit"),
        ({"text": "ok", "importance": 1.5}, "importance"),
        ({"text": "ok", "importance": float("nan")}, "importance"),
        ({"text": "ok", "category": "not a category!"}, "category"),
        ({"text": "ok", "scope": "../etc"}, "scope"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    engine: MemoryEngine, kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"scope": WIFE} | kwargs
    with pytest.raises(UserInputError, match=message):
        engine.remember(**args)  # type: ignore[arg-type]
    assert list(engine.list_memories()) == []


class BrokenEmbedder(HashEmbedder):
    """An embedder whose model has died: every call raises."""

    def __init__(self) -> None:
        super().__init__()
        self.broken = True

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if self.broken:
            raise RuntimeError("model crashed")
        return super().embed_documents(texts)


def test_a_dead_embedder_loses_nothing_and_the_index_catches_up(memory_target: str, clock: Clock) -> None:
    store = open_store(memory_target)
    embedder = BrokenEmbedder()
    engine = MemoryEngine(store, embedder, clock=clock)
    memory = engine.remember("歯医者は金曜日の午後", WIFE).memory
    assert memory.embedding_model is None
    assert contents(engine.recall("歯医者", WIFE)) == ["歯医者は金曜日の午後"]  # found by words
    assert engine.pending() == 1
    embedder.broken = False
    assert engine.index_pending() == 1
    assert engine.pending() == 0 and engine.get(memory.id).embedding_model == "hash-256"
    store.close()


def test_reindex_switches_model_and_keeps_recall(memory_target: str, clock: Clock) -> None:
    store = open_store(memory_target)
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    for text in ("likes green tea", "plays futsal", "born in Okinawa"):
        engine.remember(text, WIFE)
    other = MemoryEngine(store, HashEmbedder(dim=128), clock=clock)
    assert other.pending() == 3
    seen: list[tuple[int, int]] = []
    assert other.reindex(progress=lambda done, total: seen.append((done, total))) == 3
    assert seen[-1] == (3, 3)
    assert {m.embedding_model for m in other.list_memories()} == {"hash-128"}
    assert contents(other.recall("futsal", WIFE, k=1)) == ["plays futsal"]
    store.close()


def test_vectors_written_by_another_process_are_searched(memory_target: str, clock: Clock) -> None:
    reader = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    writer = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    reader.recall("warm", WIFE)  # the reader's vector index is now loaded
    memory = writer.remember("the spare key is under the blue pot", WIFE).memory
    hits = reader.store.vector_search("hash-256", HashEmbedder().embed_query("spare key blue pot"), [WIFE], 5)
    assert [m.memory_id for m in hits] == [memory.id]
    writer.forget(memory.id)
    assert reader.recall("spare key", WIFE) == []


def test_hash_embedder_is_deterministic() -> None:
    a = HashEmbedder().embed_documents(["同じ文", "another"])
    b = HashEmbedder().embed_documents(["同じ文", "another"])
    assert np.array_equal(a, b) and a.shape == (2, 256)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)


def test_background_indexer_embeds_bulk_rows_off_the_writer(engine: MemoryEngine) -> None:
    from shitsuji.memory import BackgroundIndexer, NewMemory

    added, dupes = engine.add_many(NewMemory(content=f"fact number {i}", scope=WIFE) for i in range(150))
    assert (added, dupes) == (150, 0)
    assert engine.pending() == 150
    assert contents(engine.recall("number 42", WIFE, k=1)) == ["fact number 42"]  # words work before vectors
    indexer = BackgroundIndexer(engine)
    try:
        indexer.notify()
        assert indexer.wait_idle(timeout=30)
    finally:
        indexer.close()
    assert engine.pending() == 0
    assert engine.stats().indexed == 150


def test_liveness_changes_in_another_process_reach_this_ones_caches(memory_target: str, clock: Clock) -> None:
    a = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    b = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    memory = a.remember("the umbrella is in the car", WIFE).memory
    assert (
        contents(a.recall("umbrella", WIFE))
        == contents(b.recall("umbrella", WIFE))
        == ["the umbrella is in the car"]
    )
    a.forget(memory.id)
    assert a.recall("umbrella", WIFE) == [] and b.recall("umbrella", WIFE) == []
    b.restore(memory.id)  # a killed its slots itself; only the generation tells it to reload
    assert a.store.keyword_search(["umbrella"], [WIFE], 5)[0][0] == memory.id
    assert contents(a.recall("umbrella", WIFE)) == ["the umbrella is in the car"]
    a.restore(memory.id)  # restoring twice is harmless
    assert len(a.recall("umbrella", WIFE, k=5)) == 1


def _document() -> str:
    filler = "This paragraph is about deployment settings and has nothing else of note. " * 8
    return (
        filler
        + "The staging database password rotates every Monday at nine. "
        + filler
        + "テストはpytestで実行し、CIではmake testを使う。"
        + filler
    )


def test_long_memories_are_indexed_in_chunks_and_recall_shows_the_matching_one(engine: MemoryEngine) -> None:
    from shitsuji.memory._text import chunks

    doc = _document()
    assert len(chunks(doc)) >= 3
    memory = engine.remember(doc, "projects/acme").memory
    [hit] = engine.recall("when does the staging password rotate", "projects/acme", k=1)
    assert hit.memory.id == memory.id and hit.memory.content == doc.strip()
    assert "rotates every Monday" in hit.excerpt and len(hit.excerpt) <= 600
    [jp] = engine.recall("CIでのテスト実行", "projects/acme", k=1)
    assert "make test" in jp.excerpt and jp.to_json()["chunk"] == jp.excerpt
    engine.forget(memory.id)  # every chunk leaves the indexes
    assert engine.recall("staging password", "projects/acme") == []


def test_chunks_keep_all_text_and_respect_the_size() -> None:
    from shitsuji.memory._text import chunks

    text = _document() + "x" * 1500
    pieces = chunks(text, size=300)
    assert all(len(p) <= 300 for p in pieces)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    assert chunks("short fact") == ["short fact"]


def test_keyword_rows_load_per_scope_and_stay_fresh(memory_target: str, clock: Clock) -> None:
    reader = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    writer = MemoryEngine(open_store(memory_target), HashEmbedder(), clock=clock)
    writer.remember("husband likes black coffee", HUSBAND)
    writer.remember("wife likes milk tea", WIFE)
    assert contents(reader.recall("likes", WIFE, k=5, semantic=False)) == ["wife likes milk tea"]
    writer.remember("husband plays futsal", HUSBAND)  # after the reader's last look
    writer.remember("wife plays piano", WIFE)
    assert contents(reader.recall("plays", WIFE, k=5, semantic=False)) == ["wife plays piano"]
    found = contents(reader.recall("husband", HUSBAND, k=5, semantic=False))  # first look at this scope
    assert sorted(found) == ["husband likes black coffee", "husband plays futsal"]


def test_edit_replaces_the_fact_and_keeps_the_old_one_restorable(engine: MemoryEngine, clock: Clock) -> None:
    scope = "household/futari/user/wife"
    old = engine.remember(
        "紅茶はストレートが好き", scope, category="preference", provenance={"conversation": "c_1"}
    )
    clock.advance(minutes=5)
    new = engine.edit(old.memory.id, content="紅茶はミルクティーが好き", importance=0.9, by="wife")
    assert new.id != old.memory.id and new.scope == scope and new.category == "preference"
    assert new.importance == 0.9 and new.embedding_model == engine.embedder.model_id
    assert new.provenance == {"conversation": "c_1", "edited_from": old.memory.id, "edited_by": "wife"}
    assert engine.get(old.memory.id).deleted_at == clock.now
    assert [h.memory.id for h in engine.recall("ミルクティー", scope, k=5)] == [new.id]
    assert all(h.memory.id != old.memory.id for h in engine.recall("ストレート", scope, k=5))
    assert engine.edit(new.id, content="紅茶はミルクティーが好き") == new  # no change, no new row
    with pytest.raises(UserInputError, match="restore it"):
        engine.edit(old.memory.id, content="x")
    with pytest.raises(UserInputError):
        engine.edit(new.id, content="   ")
    engine.restore(old.memory.id)
    assert engine.get(old.memory.id).deleted_at is None
