"""A question's vector holds its content words' meaning (real USE model): a turn that answers it in
other words is found over greetings that name the person (issue 23, lo27)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from shitsuji.memory import MemoryEngine, USEEmbedder, open_store
from shitsuji.memory._asked import WordVectors, meaning_words
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._recall import RecallWeights

SCOPE = "household/chat"
# a chat as a long conversation is remembered: each turn with the two before it as context
TURNS = [
    "Caroline: Hey Melanie, great to hear from you! What's been up since we talked?",
    "Melanie: Hi Caroline! Busy week at work, but good.",
    "Caroline: Wow, Melanie, you always know what to say. How are you doing?",
    "Melanie: Thanks, Caroline! Talk to you soon.",
    "Caroline: Melanie, it means a lot to have you in my corner.",
    "Melanie: Yesterday I took the kids swimming at the lake and we had a picnic on the shore.",
    "Caroline: That's so sweet! I'm going to a support group meeting tonight.",
    "Melanie: I finished reading a book about Roman history.",
]
ANSWER = TURNS[5]


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[MemoryEngine]:
    store = open_store(tmp_path / "chat.db")
    engine = MemoryEngine(store, USEEmbedder())
    for n, turn in enumerate(TURNS):
        engine.remember(turn, SCOPE, context="\n".join(TURNS[max(n - 2, 0) : n]) or None)
    yield engine
    store.close()


def first_three(engine: MemoryEngine, question: str, *, words: bool) -> list[str]:
    engine.weights = replace(RecallWeights(), word_meanings=words)
    return [h.memory.content for h in engine.recall(question, SCOPE, k=3)]


@pytest.mark.parametrize(
    "question",
    ["What activities has Melanie done with her family?", "How does Melanie spend time with her children?"],
)
def test_a_turn_in_other_words_comes_first_over_greetings_naming_her(
    chat: MemoryEngine, question: str
) -> None:
    # the sentence's vector alone puts greetings that name Melanie first (3rd / not in the three)
    assert first_three(chat, question, words=False)[0] != ANSWER
    assert first_three(chat, question, words=True)[0] == ANSWER


def test_the_words_are_the_questions_own_content_words_without_names() -> None:
    assert meaning_words("What activities has Melanie done with her family?") == [
        "activities",
        "done",
        "family",
    ]
    assert meaning_words("Caroline's friends: who are they?") == ["friends"]
    assert meaning_words("What is Caroline's LGBTQ+ art about?") == ["art"]
    assert meaning_words("Where does Ken work, and where did ken grow up?") == ["work", "ken", "grow"]
    assert meaning_words("ケンの出身地はどこ？") == []
    assert meaning_words("What is it?") == []


def test_a_question_without_such_words_keeps_its_sentence_vector() -> None:
    embedder = USEEmbedder()
    # (a Japanese question's own words are ja28's rule: tests/test_asked_ja.py)
    question = "Where is Melanie?"
    assert np.array_equal(question_vector(embedder, question), embedder.embed_query(question))
    mixed = question_vector(embedder, "Where does Ken work?")
    assert not np.array_equal(mixed, embedder.embed_query("Where does Ken work?"))
    assert abs(float(np.linalg.norm(mixed)) - 1.0) < 1e-5


def test_kept_word_vectors_give_the_vector_made_fresh() -> None:
    embedder = USEEmbedder()
    kept = WordVectors(size=2)
    question = "What activities has Melanie done with her family?"
    first, words = kept.of(embedder, question, ["activities", "done", "family"])
    again, words_again = kept.of(embedder, question, ["activities", "done", "family"])
    fresh = [embedder.embed_query(w) for w in ("activities", "done", "family")]
    for made in (words, words_again):
        assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(made, fresh, strict=True))
    assert np.allclose(first, again, atol=1e-5)
    assert len(kept) == 2  # the last two used
