"""A mixed-script question is searched by the meaning of both its Latin and its Japanese words
(``_asked_ja.question_words``, ``_embedding.question_vector``; issue 23, ja29), in both orders: a
Japanese question with a Latin word (Chikaは猫を飼っても平気？) and an English one with a Japanese
word (What can't Chika have because of アレルギー?). Before, a Latin word took the English rule
alone and the Japanese words were never embedded; a name opening a Japanese sentence (Chikaの…)
counted as a word. The real ``use`` model; the recall on both engines."""

from __future__ import annotations

import numpy as np

from shitsuji.memory import MemoryEngine, USEEmbedder
from shitsuji.memory._asked_ja import question_words
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import kanji_spelling

from .test_kanji_spelling import engine, memory_target, use  # noqa: F401  (the real model, both engines)

CHIKA = "household/ito/user/chika"
# from src/shitsuji/bench/data/ja-mixed: one member's notes, in both languages
NOTES = [
    "Chikaの好物は母の作るロールキャベツ",
    "Chikaは駅前の図書館で司書をしている",
    "Chika goes to the gym near the station on Monday and Thursday nights.",
    "Chika is allergic to cats; her eyes itch within minutes.",
    "Chikaは来月からスペイン語のオンライン講座を受ける",
    "Chikaの歯医者の予約は毎年十月",
    "Chika doesn't drink coffee after 3 pm or she can't sleep.",
]
CATS = NOTES[3]
#: (question, the note it asks about): a Japanese question with a Latin word, an English one with Japanese words
ASKED = [
    ("Chikaは猫を飼っても平気？", CATS),
    ("What can't Chika have because of アレルギー?", CATS),
    ("Chikaが夕方以降に避けてる飲み物は？", NOTES[6]),
    ("Chikaの検診はいつ？", NOTES[5]),
]


def _words(question: str) -> list[str]:
    return question_words(question, kanji_spelling(question))


def test_a_mixed_question_has_both_lists_of_words() -> None:
    assert _words("Wi-Fiの契約いつまで？") == ["wi-fi", "契約"]
    assert _words("When does the Wi-Fi 契約 end?") == [
        "end",
        "契約",
    ]  # Wi-Fi after the first word: a name (lo27)
    # a name opening a Japanese sentence is a name: Japanese has no sentence-start capital to excuse it
    assert _words("Chikaの好きな食べ物は？") == ["好き", "食べ物"]
    assert _words("Chika の仕事は？") == ["仕事"]
    assert _words("iPadの充電器どこ？") == ["ipad", "充電器"]
    # one list alone: as before
    assert _words("Where does Ken work?") == ["work"]
    assert _words("ケンの出身地はどこ？") == ["出身地"]
    assert _words("Chikaは？") == ["chika"]


def test_each_order_finds_its_note_first_by_meaning(use: USEEmbedder) -> None:  # noqa: F811
    notes = use.embed_documents(NOTES)
    for question, answer in ASKED:
        scores = notes @ question_vector(use, question)
        assert NOTES[int(np.argmax(scores))] == answer, question


def test_recall_finds_the_note_in_both_orders(engine: MemoryEngine) -> None:  # noqa: F811
    for text in NOTES:
        engine.remember(text, CHIKA)
    for question, answer in ASKED[:2]:
        assert engine.recall(question, CHIKA, k=3)[0].memory.content == answer, question
