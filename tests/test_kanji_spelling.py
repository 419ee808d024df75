"""A question's hiragana nouns are also read in their kanji spelling for its vector
(``_readings.kanji_spelling``, ``_embedding.question_vector``): なっとう finds 納豆 by meaning, where
the model puts the two spellings far apart. And a keyword list of equal scores is the least sure
one (``_recall.standout_of``): "When is my birthday?" finds the asker's Japanese note above other
people's English birthdays, each of which matched the one word equally. On both engines, with the
real ``use`` model."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from shitsuji.memory import MemoryEngine, USEEmbedder, _readings, open_store
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._readings import kanji_spelling
from shitsuji.memory._romaji import name_spellings
from shitsuji.memory._text import query_terms

from .conftest import Clock

RIKU = "household/futari/user/riku"
QUESTION = "なっとうは食べる？"
NOTE = "リクは納豆が食べられない"
# by the typed question's vector each is nearer than NOTE (cosine 0.33-0.40 against 0.31)
NEARER = ["リクはうどんを毎日食べる", "リクは寿司をよく食べる", "リクはパンを朝に食べる"]


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


@pytest.fixture
def memory_target(target: str) -> str:
    return target


@pytest.fixture
def engine(memory_target: str, clock: Clock, use: USEEmbedder) -> Iterator[MemoryEngine]:
    store = open_store(memory_target)
    yield MemoryEngine(store, use, clock=clock)
    store.close()


def test_hiragana_nouns_are_spelled_in_kanji_and_nothing_else_changes() -> None:
    assert kanji_spelling(QUESTION) == "納豆は食べる？"
    assert kanji_spelling("めがねはどこ？") == "眼鏡はどこ？"
    assert kanji_spelling("納豆は食べる？") is None  # already in kanji
    assert kanji_spelling("薬は飲んでる？") is None  # a verb keeps its inflected form (飲む would change it)
    assert kanji_spelling("When is my birthday?") is None


def test_the_question_vector_is_the_typed_one_without_such_nouns(use: USEEmbedder) -> None:
    typed = "納豆は好き？"  # without its words' meaning (``_asked_ja``), which would move any such question
    assert np.array_equal(question_vector(use, typed, words=False), use.embed_query(typed))
    both = question_vector(use, QUESTION, words=False)
    assert float(np.linalg.norm(both)) == pytest.approx(1.0, abs=1e-5)
    note = use.embed_documents([NOTE])[0]
    assert float(both @ note) > float(use.embed_query(QUESTION) @ note)


def test_a_kana_question_finds_the_kanji_note_by_meaning(engine: MemoryEngine) -> None:
    for text in NEARER:
        engine.remember(text, RIKU)
    engine.remember(NOTE, RIKU)
    hits = engine.recall(QUESTION, RIKU, k=3, lexical=False)
    assert hits[0].memory.content == NOTE  # 4th on 453f1c1: the typed なっとう is far from 納豆


def test_my_birthday_in_japanese_above_others_equal_english_birthdays(engine: MemoryEngine) -> None:
    yui = "household/futari/user/yui"
    others = [
        ("Ben", "May 3"),
        ("Emi", "June 12"),
        ("Goro", "July 20"),
        ("Hana", "March 7"),
        ("Lena", "April 15"),
    ]
    for name, day in [*others, ("Ivan", "Sept 9")]:
        engine.remember(f"{name}'s birthday is on {day}", yui)
    mine = engine.remember("ユイの誕生日は八月九日", yui).memory
    hits = engine.recall("When is my birthday?", yui, k=3)
    assert hits[0].memory.id == mine.id  # on 453f1c1 every English birthday (one BM25 score) came first


def test_a_question_is_parsed_once_for_its_keyword_terms_and_its_spelling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The spelling reads the analysis the keyword terms made of each Japanese run (``_readings.analysis``):
    one parse of the question, not one more of the whole text each turn (a3c941b: the SQLite turn's
    second parse, issue 23 qv28); a run asked before, and a text without two hiragana in a row, none."""
    tokenizer = _readings._tokenizer()
    parsed: list[str] = []

    class Counting:  # the analyser's own tokenizer, its calls counted
        def tokenize(self, text: str, *args: object) -> object:
            parsed.append(text)
            return tokenizer.tokenize(text, *args)

    monkeypatch.setattr(_readings._local, "tokenizer", Counting())
    for cached in (
        _readings.analysis,
        _readings.content_words,
        _readings.reading_terms,
        _readings.kanji_spelling,
    ):
        cached.cache_clear()
    name_spellings.cache_clear()
    question = "めがねとかぎはどこ？（3）"
    query_terms(question)
    assert kanji_spelling(question) == "眼鏡とかぎはどこ？（3）"
    assert parsed == ["めがねとかぎはどこ"]
    query_terms("めがねとかぎはどこ？（4）")  # the bench's chat lines: the same words, a new number
    assert kanji_spelling("めがねとかぎはどこ？（4）") == "眼鏡とかぎはどこ？（4）"
    assert kanji_spelling("猫の名前は？") is None  # no two hiragana in a row: nothing to respell
    assert parsed == ["めがねとかぎはどこ"]
