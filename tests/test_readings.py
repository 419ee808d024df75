"""Japanese words indexed under their readings: kana and kanji spellings of one word meet
(納豆 / なっとう, 母 / はは, 蕎麦 / そば), on both engines, and ``reindex`` brings rows an
older version indexed without readings up to date."""

from __future__ import annotations

import threading

import pytest

from shitsuji.memory import MemoryEngine
from shitsuji.memory._readings import katakana, reading_terms
from shitsuji.memory._text import query_terms, terms

TARO = "household/futari/user/taro"
NOTES = [
    "タロウは納豆が食べられない",
    "タロウの母の誕生日は七月二日",
    "タロウは蕎麦アレルギーがある",
    "タロウは毎朝コーヒーを飲む",
    "Taro goes fishing at the lake most Sunday mornings.",
]


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def test_a_kanji_word_and_its_kana_spelling_share_reading_terms() -> None:
    assert reading_terms("納豆") == reading_terms("なっとう") == ("ナッ", "ット", "トウ")
    assert set(reading_terms("母の誕生日")) >= {"ハハ"}
    assert "ハハ" in reading_terms("ははの誕生日")
    assert set(reading_terms("花粉症")) >= set(
        reading_terms("しょう")
    )  # a kana compound split by the analyser
    assert katakana("なっとう") == "ナットウ"


def test_particles_katakana_words_and_english_add_nothing() -> None:
    assert reading_terms("ケーキ") == ()  # katakana already is its reading: its bigrams are there
    assert "ノ" not in "".join(reading_terms("ミオの"))  # の is a particle
    assert terms("Ben is from Osaka") == ["ben", "osaka"]


def test_readings_are_the_same_from_every_thread() -> None:
    expected = reading_terms.__wrapped__("ミオは花粉症で、春は薬を欠かさない")
    seen: list[tuple[str, ...]] = []
    threads = [
        threading.Thread(
            target=lambda: seen.append(reading_terms.__wrapped__("ミオは花粉症で、春は薬を欠かさない"))
        )
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [expected] * 4


@pytest.mark.parametrize(
    ("question", "answer"),
    [("なっとうは好き？", 0), ("ははの誕生日は？", 1), ("そばはだめ？", 2)],
)
def test_a_kana_question_finds_the_kanji_note_by_words(
    engine: MemoryEngine, question: str, answer: int
) -> None:
    ids = [engine.remember(note, TARO).memory.id for note in NOTES]
    hits = engine.recall(question, TARO, k=1, semantic=False)
    assert [h.memory.id for h in hits] == [ids[answer]]


def test_reindex_adds_readings_to_rows_indexed_without_them(engine: MemoryEngine) -> None:
    ids = [engine.remember(note, TARO).memory.id for note in NOTES]
    # rows as a version without readings indexed them: surface bigrams and kanji alone
    older = [
        (i, " ".join(t for t in terms(n) if t not in set(reading_terms(n))))
        for i, n in zip(ids, NOTES, strict=True)
    ]
    engine.store.rewrite_terms(older)
    assert "ナッ" in query_terms("なっとう")
    assert all(h.memory.id != ids[0] for h in engine.recall("なっとう", TARO, k=5, semantic=False))
    engine.reindex()
    assert [h.memory.id for h in engine.recall("なっとう", TARO, k=1, semantic=False)] == [ids[0]]
