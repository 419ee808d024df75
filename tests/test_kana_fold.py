"""A kana question's coverage counts the sounds a kanji note holds, whichever script wrote them
(``memory/_kana.py``): けっこんきねんび and 結婚記念日 are one word, on both engines."""

from __future__ import annotations

import pytest

from shitsuji.memory import MemoryEngine
from shitsuji.memory._kana import fold_kana
from shitsuji.memory._rank import held_terms
from shitsuji.memory._recall import keyword_coverage
from shitsuji.memory._text import query_terms

RIKU = "household/futari/user/riku"
QUESTION = "けっこんきねんびはいつ？"
NOTES = [
    "リクの結婚記念日は十一月三日",  # the answer: its sounds only as katakana readings
    "リクはいつもこんびにでおにぎりをかう",  # hiragana that shares the question's surface bigrams
    "リクはきねんしゃしんをいつもとる",
    "ユイはいつも早起き",
    "いつか京都に行きたい",
    "ねんにいちど歯医者に行く",
]


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def test_hiragana_and_katakana_fold_to_one_script() -> None:
    assert fold_kana(["けっ", "ケッ", "結婚", "riku"]) == {"ケッ", "結婚", "riku"}


def test_a_kanji_note_holds_most_of_a_kana_questions_sounds(engine: MemoryEngine) -> None:
    note = engine.remember(NOTES[0], RIKU).memory
    share = keyword_coverage(list(fold_kana(query_terms(QUESTION))), {"note": held_terms(note)})["note"]
    assert share >= 0.5  # 4 of 15 before: the question's hiragana bigrams were never held


def test_a_kana_question_finds_the_kanji_note_first_by_words(engine: MemoryEngine) -> None:
    ids = [engine.remember(note, RIKU).memory.id for note in NOTES]
    hits = engine.recall(QUESTION, RIKU, k=3, semantic=False)
    assert hits[0].memory.id == ids[0]
