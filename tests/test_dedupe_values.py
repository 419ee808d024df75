"""Near in meaning is not a duplicate when the values differ (``_values``): the real engine, SQLite, ``use``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shitsuji.memory import Embedder, MemoryEngine, USEEmbedder, open_store
from shitsuji.memory._values import same_values


@pytest.fixture(scope="module")
def use() -> Embedder:
    return USEEmbedder()


@pytest.fixture
def engine(tmp_path: Path, use: Embedder) -> Iterator[MemoryEngine]:
    store = open_store(tmp_path / "m.db")
    yield MemoryEngine(store, use)
    store.close()


def _cosine(use: Embedder, a: str, b: str) -> float:
    vectors = use.embed_documents([a, b])
    return float(vectors[0] @ vectors[1])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The deploy day is Tuesday", "The deploy day is Thursday"),  # cosine 0.956
        ("燃えるゴミの日は毎週火曜日です", "燃えるゴミの日は毎週木曜日です"),  # 火曜 → 木曜, 0.965
        ("塾の迎えは午後3時", "塾の迎えは午後５時"),  # 3時 → 5時 (full-width), 0.92
    ],
)
def test_a_new_value_is_stored_and_supersedes_the_old(
    engine: MemoryEngine, use: Embedder, old: str, new: str
) -> None:
    assert _cosine(use, old, new) >= use.dedupe_threshold  # near enough to have been dropped before
    first = engine.remember(old, "home").memory
    second = engine.remember(new, "home")
    assert not second.duplicate and second.superseded == (first.id,)
    kept = engine.get(first.id)  # the old fact stays, as history
    assert kept.provenance["superseded_by"] == second.memory.id and kept.valid_until is not None
    assert {m.content for m in engine.list_memories("home")} == {old, new}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The deploy day is Tuesday", "The deploy day is not Tuesday"),  # 0.922
        ("夫は毎朝コーヒーを飲む", "夫は毎朝コーヒーを飲まない"),  # 0.927
        (
            "息子の誕生日は3月14日",
            "息子の誕生日は5月14日",
        ),  # 3月 → 5月, 0.947 (openings too short to supersede)
    ],
)
def test_a_negation_or_a_new_value_is_stored(engine: MemoryEngine, use: Embedder, old: str, new: str) -> None:
    assert _cosine(use, old, new) >= use.dedupe_threshold
    engine.remember(old, "home")
    second = engine.remember(new, "home")
    assert not second.duplicate
    assert new in {m.content for m in engine.list_memories("home")}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The deploy day is Tuesday", "The deploy day is on Tuesday"),
        ("My wife loves green tea", "My wife really likes green tea"),
        ("I have two cats", "I have 2 cats"),
        ("妻は紅茶が好き", "妻は紅茶が大好き"),
        ("ゴミの日は火曜です", "ゴミの日は火曜"),
    ],
)
def test_a_paraphrase_is_still_a_duplicate(engine: MemoryEngine, old: str, new: str) -> None:
    first = engine.remember(old, "home").memory
    second = engine.remember(new, "home")
    assert second.duplicate and second.memory.id == first.id
    assert engine.find_duplicate(new, "home") is not None
    assert [m.content for m in engine.list_memories("home")] == [old]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("夫は朝三時に起きる", "夫は朝3時に起きる", True),  # kanji numerals read as numbers
        ("夫は朝三時に起きる", "夫は朝五時に起きる", False),
        ("The deploy day is Tuesday", "The deploy day is 火曜", True),
        ("We deploy on Tuesdays", "The deploy day is Thursday", False),
        ("Her birthday is in March", "Her birthday is in 3月", True),
        ("I may come", "I might come", True),  # the verb is no month
        ("The party is in May", "The party is in June", False),
        ("He isn't coming", "He is coming", False),
        ("食べずに出た", "食べて出た", False),
    ],
)
def test_same_values(a: str, b: str, same: bool) -> None:
    assert same_values(a, b) is same
