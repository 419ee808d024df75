"""A memory is found by the day it was said: "what did Maria donate in December 2022?" (issue 23, lo23c).

On both engines: the keyword index (SQLite FTS, PostgreSQL postings) holds the terms of the day a
memory was said, so a question naming a month and a year finds what was said then, though its
words never name the date. Without those terms the newer of two equal matches comes first.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shitsuji.memory import MemoryEngine
from shitsuji.memory._engine import index_terms
from shitsuji.memory._said import said_terms
from shitsuji.memory._text import query_terms

from .conftest import Clock

SCOPE = "household/futari"


@pytest.fixture
def memory_target(target: str) -> str:
    return target


@pytest.fixture
def fixed(engine: MemoryEngine, clock: Clock) -> MemoryEngine:
    clock.now = datetime(2026, 12, 1, tzinfo=UTC)
    return engine


def test_the_terms_of_a_day_are_its_day_month_and_year() -> None:
    assert said_terms(datetime(2022, 12, 3, 18, 5, tzinfo=UTC)) == ["3", "decemb", "2022"]
    assert said_terms(None) == []
    assert index_terms("Maria donated coats", None, said_at=datetime(2022, 12, 3, tzinfo=UTC)).split() == [
        "maria",
        "donat",
        "coat",
        "3",
        "decemb",
        "2022",
    ]


def _said(engine: MemoryEngine, text: str, when: datetime) -> str:
    return engine.remember(text, SCOPE, created_at=when).memory.id


def test_a_month_and_year_find_what_was_said_then(fixed: MemoryEngine) -> None:
    then = _said(fixed, "Maria donated a box of books to the library", datetime(2022, 12, 3, 18, tzinfo=UTC))
    later = _said(fixed, "Maria donated her old coats to the shelter", datetime(2023, 5, 20, 9, tzinfo=UTC))
    # the words alone match both alike; the vector (and recency) favour the later one
    assert fixed.recall("What did Maria donate in 2023, and in December?", SCOPE)[0].memory.id == later
    assert fixed.recall("What did Maria donate in December 2022?", SCOPE)[0].memory.id == then


def test_a_japanese_question_naming_the_year_matches_it_by_keyword(fixed: MemoryEngine) -> None:
    # a Japanese question leans on meaning (its vector weight is 1.25): the year is one keyword among
    # many character bigrams, so this checks the keyword index of both engines, not the final order
    then = _said(fixed, "マリアは古いコートを寄付した", datetime(2022, 12, 3, 18, tzinfo=UTC))
    later = _said(fixed, "マリアは本を寄付した", datetime(2023, 5, 20, 9, tzinfo=UTC))

    def first(question: str) -> str:
        return fixed.store.keyword_search(query_terms(question), [SCOPE], 10)[0].memory_id

    assert first("マリアは何を寄付した？") == later
    assert first("2022年にマリアは何を寄付した？") == then
