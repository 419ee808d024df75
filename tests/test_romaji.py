"""Names in both scripts meet by words: ケン's Japanese note is found by "Ken", Ken's English
note by ケン, on both engines; the romanisation and which words get one."""

from __future__ import annotations

import pytest

from shitsuji.memory import MemoryEngine
from shitsuji.memory._romaji import name_spellings, romanise
from shitsuji.memory._text import terms

KEN = "household/futari/user/ken"
NOTES = [
    "ケンは市役所の税務課で働いている",
    "Ken keeps his passport in the blue folder on the bookshelf.",
    "Kenjiは天ぷらが苦手",
    "ユイは保育園で保育士をしている",
    "Yui is learning Korean on her phone every night.",
]


@pytest.fixture
def memory_target(target: str) -> str:
    return target


@pytest.mark.parametrize(
    ("kana", "latin"),
    [
        ("ケン", "ken"),
        ("サッポロ", "sapporo"),  # ッ doubles the next consonant
        ("マッチャ", "matcha"),  # ... and makes ch tch
        ("トウキョウ", "tokyo"),  # long vowels dropped as English spellings drop them
        ("オオサカ", "osaka"),
        ("リョウタ", "ryota"),
        ("シャシン", "shashin"),
        ("ジュン", "jun"),
        ("ラーメン", "ramen"),
        ("ゆい", "yui"),  # hiragana too
        ("ケンx", ""),  # not kana: nothing
    ],
)
def test_hepburn_romanisation(kana: str, latin: str) -> None:
    assert romanise(kana) == latin


def test_names_places_and_katakana_words_are_spelled_common_kanji_words_are_not() -> None:
    assert name_spellings("ベンは大阪出身") == ("ben", "osaka")
    assert name_spellings("太郎は札幌で働く") == ("taro", "sapporo")
    assert name_spellings("ミオはパクチーが大嫌い") == (
        "mio",
        "pakuchi",
    )  # ミオ: a "common noun" to the dictionary
    assert name_spellings("市役所の税務課で働いている") == ()


def test_the_hook_gates_terms_hold_no_spellings() -> None:
    assert "ken" in terms("ケンは市役所で働いている")
    assert "ken" not in terms("ケンは市役所で働いている", readings=False)


def test_an_english_question_finds_the_japanese_note_by_the_name(engine: MemoryEngine) -> None:
    ids = [engine.remember(note, KEN).memory.id for note in NOTES]
    found = [h.memory.id for h in engine.recall("Where does Ken work?", KEN, k=5, semantic=False)]
    assert ids[0] in found
    assert ids[2] not in found  # Kenji is another name
    assert ids[3] not in found and ids[4] not in found


def test_a_japanese_question_finds_the_english_note_by_the_name(engine: MemoryEngine) -> None:
    ids = [engine.remember(note, KEN).memory.id for note in NOTES]
    found = [h.memory.id for h in engine.recall("ケンのパスポートはどこ？", KEN, k=5, semantic=False)]
    assert ids[1] in found
    assert ids[4] not in found
