"""A Japanese question's vector holds its content words' meaning (``_asked_ja``,
``_embedding.question_vector``; issue 23, ja28): スペアキーはどこにある？ finds the note that says 合鍵,
which the sentence's vector alone put below an unrelated note. On both engines, with the real
``use`` model."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from shitsuji.memory import MemoryEngine, USEEmbedder
from shitsuji.memory._asked import meaning_words
from shitsuji.memory._asked_ja import japanese_meaning_words
from shitsuji.memory._embedders import unit
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import kanji_spelling
from shitsuji.memory._recall import RecallWeights

from .test_kanji_spelling import engine, memory_target, use  # noqa: F401  (the real model, both engines)

HOUSE = "household/futari"
QUESTION = "スペアキーはどこにある？"
ANSWER = "勝手口の合鍵は物置の棚の缶に入れてある"
NOTES = [
    "浴室の換気扇のフィルターは月に一回洗う",
    "自治会のゴミ当番は毎月第三土曜",
    "水道代は口座振替、電話代はカード払い",
    "古新聞は資源ごみの日に出す",
    "Kenは市役所で働いている",  # first by the sentence's vector alone
    "ケンは蕎麦アレルギーがある",
    "ケンは毎朝コーヒーを飲む",
    "ケンは寿司が好き",
]


def test_the_words_are_the_questions_japanese_content_words() -> None:
    assert japanese_meaning_words(QUESTION) == [
        "スペアキー"
    ]  # ある (非自立可能) and どこ (a pronoun) left out
    assert japanese_meaning_words("蛇口が壊れたら誰に連絡する？") == ["蛇口", "壊れ", "連絡"]
    assert japanese_meaning_words("ケンの出身地はどこ？") == ["出身地"]  # a name is left to the keywords
    assert japanese_meaning_words("When is my birthday?") == []
    # a word its sentence negates says the opposite alone: 食べ of 食べられない, 好き of 好きじゃない
    assert japanese_meaning_words("ケンが食べられない物は？") == []
    assert japanese_meaning_words("好きじゃない野菜は？") == ["野菜"]


def test_a_question_without_content_words_is_embedded_as_typed(use: USEEmbedder) -> None:  # noqa: F811
    # 札幌 is a name, 行っ leans on another word (非自立可能), 誰 is a pronoun: no word is left. Until
    # issue 23 (fl29) the empty list failed (``_tails``) and recall answered by keywords alone (32 of
    # ``bench latency``'s first 300 questions: "{place}に行ったのは誰？")
    question = "札幌に行ったのは誰？"
    assert japanese_meaning_words(question) == []
    assert kanji_spelling(question) is None
    assert np.array_equal(question_vector(use, question), use.embed_query(question))


def test_the_words_move_only_a_japanese_questions_vector(use: USEEmbedder) -> None:  # noqa: F811
    english = "Where is the spare key?"  # lo27's rule, its Latin words only: the Japanese words add nothing
    # (close, not equal: the first call embeds the words in its batch, the second has them kept)
    words = [use.embed_query(w) for w in meaning_words(english)]
    lo27 = unit(unit(use.embed_query(english)) + unit(np.mean(np.stack(words), axis=0)))
    assert np.allclose(question_vector(use, english), lo27, atol=1e-5)
    plain = question_vector(use, QUESTION, words=False)
    assert kanji_spelling(QUESTION) is None and np.array_equal(plain, use.embed_query(QUESTION))
    both = question_vector(use, QUESTION)
    assert float(np.linalg.norm(both)) == pytest.approx(1.0, abs=1e-5)
    note = use.embed_documents([ANSWER])[0]
    assert float(both @ note) > float(plain @ note)


def test_a_paraphrased_question_finds_its_note_first(engine: MemoryEngine) -> None:  # noqa: F811
    for text in NOTES:
        engine.remember(text, HOUSE)
    answer = engine.remember(ANSWER, HOUSE).memory
    engine.weights = replace(RecallWeights(), word_meanings=False)
    assert engine.recall(QUESTION, HOUSE, k=3)[0].memory.id != answer.id  # the sentence alone: 2nd
    engine.weights = RecallWeights()
    assert engine.recall(QUESTION, HOUSE, k=3)[0].memory.id == answer.id


def test_a_negated_word_does_not_pull_a_keyed_note_down(engine: MemoryEngine) -> None:  # noqa: F811
    # ケンが食べられないものは？: were 食べ taken as a word, it would pull towards the eating notes and put the keyed note
    # 2nd (min-max over three candidates); a negated word is left out, so the question keeps its vector
    ken = "household/futari/user/ken"
    for text in ["Kenjiは餅が好きで、毎週土曜日に食べる", "Kenjiはうどんが好きで、毎週月曜日に食べる"]:
        engine.remember(text, ken)
    note = engine.remember(
        "Ken is allergic to shellfish, especially shrimp.",
        ken,
        keys=["アレルギー", "甲殻類", "エビ", "食べられないもの"],
    ).memory
    assert engine.recall("ケンが食べられないものは？", ken, k=3)[0].memory.id == note.id


def test_a_run_without_content_words_is_read(engine: MemoryEngine) -> None:  # noqa: F811
    # ねえ、 is a run of its own with no content word: its words were zipped with one tail too many,
    # and recall raised for any question that opened so (issue 23, ja29)
    assert japanese_meaning_words("ねえ、合鍵はどこ？") == ["合鍵"]
    assert japanese_meaning_words("それ、どう？") == []
    engine.remember(ANSWER, HOUSE)
    assert [h.memory.content for h in engine.recall("ねえ、合鍵はどこ？", HOUSE, k=1)] == [ANSWER]
