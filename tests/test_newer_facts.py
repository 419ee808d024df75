"""Newer facts win: supersede on write (kept and restorable), recency between versions, shared facts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, USEEmbedder, open_store
from shitsuji.memory._supersede import same_subject

from .conftest import Clock


@pytest.fixture
def memory_target(target: str) -> str:
    """Every engine here runs on both engines."""
    return target


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("夫の好きな飲み物はコーヒー", "夫の好きな飲み物は紅茶", True),
        ("アキの自宅の最寄り駅は三鷹", "アキの自宅の最寄り駅は吉祥寺", True),
        ("The deploy day is Tuesday", "The deploy day is Thursday", True),
        ("夫は沖縄出身", "妻は沖縄出身", False),  # another person: never merged
        ("Ben likes sushi", "Ben likes ramen", False),  # too short an opening to call it one subject
        ("夫の好きな飲み物はコーヒー", "夫の好きな飲み物はコーヒー", False),  # a duplicate, not a new value
        ("ゴミの日は月曜と木曜", "ゴミ袋は45リットルのものを買う", False),
    ],
)
def test_same_subject(old: str, new: str, expected: bool) -> None:
    assert same_subject(old, new) is expected


def test_a_new_value_supersedes_the_old_fact_which_stays_restorable(
    engine: MemoryEngine, clock: Clock
) -> None:
    scope = "household/futari/user/husband"
    old = engine.remember("夫の好きな飲み物はコーヒー", scope).memory
    clock.advance(days=40)
    result = engine.remember("夫の好きな飲み物は紅茶", scope)
    assert result.superseded == (old.id,) and result.to_json()["superseded"] == [old.id]
    assert result.memory.provenance["supersedes"] == old.id
    found = [h.memory.id for h in engine.recall("好きな飲み物は？", scope, k=5)]
    assert found == [result.memory.id]
    kept = engine.get(old.id)  # still there, with its history
    assert (
        kept.valid_until == result.memory.created_at and kept.provenance["superseded_by"] == result.memory.id
    )
    assert old.id in {m.id for m in engine.list_memories(scope)}
    restored = engine.restore(old.id)
    assert restored.valid_until is None and restored.provenance["restored_from"] == result.memory.id
    assert {h.memory.id for h in engine.recall("好きな飲み物は？", scope, k=5)} == {old.id, result.memory.id}


def test_forgetting_the_correction_brings_the_old_fact_back(engine: MemoryEngine, clock: Clock) -> None:
    scope = "household/futari/user/husband"
    old = engine.remember("夫の好きな飲み物はコーヒー", scope).memory
    clock.advance(days=3)
    new = engine.remember("夫の好きな飲み物は紅茶", scope).memory
    engine.forget(new.id)
    assert [h.memory.id for h in engine.recall("好きな飲み物は？", scope, k=5)] == [old.id]
    assert engine.get(old.id).valid_until is None


def test_facts_about_different_people_or_stated_earlier_never_supersede(
    engine: MemoryEngine, clock: Clock
) -> None:
    scope = "household/futari"
    husband = engine.remember("夫は沖縄出身", scope).memory
    wife = engine.remember("妻は沖縄出身", scope)
    assert wife.superseded == ()
    later = engine.remember("リビングのエアコンは冷房26度に設定する", scope).memory
    earlier = engine.remember(
        "リビングのエアコンは冷房24度に設定する", scope, created_at=later.created_at - timedelta(days=30)
    )
    assert earlier.superseded == ()
    assert {husband.id, wife.memory.id, later.id, earlier.memory.id} <= {
        h.memory.id for h in engine.recall("エアコン 沖縄", scope, k=10)
    }


def test_chat_turns_with_context_never_supersede(engine: MemoryEngine, clock: Clock) -> None:
    scope = "bench/chat"
    engine.remember("Caroline: my favourite colour is blue", scope, context="Melanie: hi")
    clock.advance(days=2)
    turn = engine.remember("Caroline: my favourite colour is green", scope, context="Melanie: and now?")
    assert turn.superseded == ()


@pytest.fixture
def use_engine(tmp_path: Path, clock: Clock) -> Iterator[MemoryEngine]:
    store = open_store(tmp_path / "use.db")
    yield MemoryEngine(store, USEEmbedder(), clock=clock)
    store.close()


def test_the_newer_habit_ranks_first_and_the_old_one_is_only_demoted(
    use_engine: MemoryEngine, clock: Clock
) -> None:
    scope = "household/futari/user/wife"
    now = clock.now
    old = use_engine.remember(
        "アキは毎晩ビールを一本飲むのが晩酌の習慣", scope, created_at=now - timedelta(days=200)
    ).memory
    new = use_engine.remember(
        "先月から、アキの晩酌は週末だけでワイン一杯までにした", scope, created_at=now - timedelta(days=30)
    ).memory
    use_engine.remember("アキは猫派で、実家で三毛猫を飼っている", scope)
    for query in ("今の晩酌のルールは？", "晩酌のルールは？"):
        hits = [h.memory.id for h in use_engine.recall(query, scope, k=3)]
        assert hits[:2] == [new.id, old.id], query


def test_a_strongly_matching_shared_fact_beats_the_speakers_unrelated_ones(
    use_engine: MemoryEngine,
) -> None:
    wife = "household/futari/user/wife"
    for fact in ("妻は紅茶が好き", "妻の誕生日は5月3日", "妻は毎朝ヨガをする", "妻の職場は渋谷"):
        use_engine.remember(fact, wife)
    shared = use_engine.remember("ゴミの日は月曜と木曜、資源ごみは第二水曜", "household/futari").memory
    hits = use_engine.recall("ゴミの日はいつ？", wife, k=3)
    assert hits[0].memory.id == shared.id


def test_an_english_fact_is_found_in_japanese_and_the_reverse(use_engine: MemoryEngine) -> None:
    scope = "household/futari/user/wife"
    for fact in ("妻は紅茶が好き", "妻の誕生日は5月3日", "妻の職場は渋谷"):
        use_engine.remember(fact, scope)
    english = use_engine.remember("She is allergic to shellfish, especially shrimp.", scope).memory
    japanese = use_engine.remember("妻は毎朝ヨガをする", scope).memory
    assert use_engine.recall("甲殻類のアレルギーある？", scope, k=1)[0].memory.id == english.id
    assert use_engine.recall("Does she do yoga?", scope, k=1)[0].memory.id == japanese.id


def test_a_newer_version_worded_differently_goes_first(tmp_path: Path, clock: Clock) -> None:
    store = open_store(tmp_path / "hash.db")
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    scope = "projects/acme"
    old = engine.remember("Release checklist: bump the version, tag it, push the tag, publish", scope).memory
    clock.advance(days=10)
    new = engine.remember("To release: bump the version, tag it, push the tag, publish, announce", scope)
    assert new.superseded == ()  # different openings: both stay valid, ranking decides
    query = "how do we release: bump the version and push the tag?"
    assert [h.memory.id for h in engine.recall(query, scope, k=2)] == [new.memory.id, old.id]
    store.close()
