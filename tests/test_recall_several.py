"""A question that asks for several things weighs meaning at least as much as words (issue 23 ls28).

"How many pieces of furniture did I buy?" is answered by memories that name the things in their own
words (a table lamp, throw pillows); the keyword list holds every turn that says "furniture" or
"buy". Each case ranks the same two lists for a question that asks for one thing and one that asks
for several, through the ranking recall uses (``rank_candidates``) and through ``top_hits``, whose
row bounds must know the raised weight.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from shitsuji.memory._recall import RecallWeights
from shitsuji.memory._several import asks_for_several, several_weights
from shitsuji.memory._slots import Match

from .test_recall_top_hits import both, memory

NOTES = {
    **{f"kw{i}": memory(f"kw{i}", f"turn {i} that says furniture and buy in passing") for i in range(40)},
    "lamp": memory("lamp", "I got a modern table lamp to match the metal legs of my new coffee table"),
    **{f"far{i}": memory(f"far{i}", f"turn {i} about something else") for i in range(40)},
}
RANKED = {
    # forty turns share a word or two with the question; the lamp shares none
    "keyword": [Match(f"kw{i}", 8.0 - i * 0.1) for i in range(40)],
    # by meaning the lamp is the best; other turns follow, the keyword turns last
    "vector": [Match("lamp", 0.45)]
    + [Match(f"far{i}", 0.30 - i * 0.003) for i in range(40)]
    + [Match(f"kw{i}", 0.15 - i * 0.002) for i in range(40)],
}


@pytest.mark.parametrize(
    ("question", "several"),
    [
        ("How many pieces of furniture did I buy?", True),
        ("What is the total I spent on furniture?", True),
        ("What is the order of the three trips I took?", True),
        ("家具を全部でいくつ買った？", True),
        ("先月は何回ジムに行った？", True),
        ("Where did I buy my bookshelf?", False),
        ("How many days ago did I meet Emma?", False),  # one event's date
        ("How many months before my anniversary did Rachel get engaged?", True),  # two events'
        ("何日前にエマに会った？", False),
        ("本棚はどこで買った？", False),
    ],
)
def test_questions_that_ask_for_several_things(question: str, several: bool) -> None:
    assert asks_for_several(question) is several


def test_a_count_finds_the_memory_that_matches_only_by_meaning() -> None:
    every, top, rows = both("How many pieces of furniture did I buy?", RANKED, NOTES, k=5)
    assert top == every
    assert top[0][0] == "lamp"
    assert rows.read < len(NOTES)


def test_the_row_bounds_know_the_raised_weight() -> None:
    # without ``cross_script`` (whose factor already bounds a vector share by both weights) a bound
    # made with the vector weighed 0.4 stops reading before the lamp: ``top_hits`` must bound each
    # candidate with the weights the question is ranked with
    w = replace(RecallWeights(), cross_script=False)
    every, top, rows = both("How many pieces of furniture did I buy?", RANKED, NOTES, k=5, w=w)
    assert top == every
    assert top[0][0] == "lamp"
    assert rows.read < len(NOTES)


def test_a_question_for_one_thing_keeps_words_first() -> None:
    every, top, _ = both("Which furniture did I buy?", RANKED, NOTES, k=5)
    assert top == every
    assert "lamp" not in [memory_id for memory_id, _ in top]


def test_the_rule_off_gives_the_ranking_of_before() -> None:
    off = replace(RecallWeights(), several_by_meaning=False)
    every, top, _ = both("How many pieces of furniture did I buy?", RANKED, NOTES, k=5, w=off)
    assert top == every
    assert "lamp" not in [memory_id for memory_id, _ in top]


def test_the_weights_change_only_where_meaning_weighed_less() -> None:
    w = RecallWeights()
    assert several_weights("How many lamps?", w).vector_weight == w.keyword_weight
    assert several_weights("Where is the lamp?", w) is w
    # a question that already leans on meaning (a larger vector weight) is left as it is
    leaning = replace(w, vector_weight=1.5)
    assert several_weights("How many lamps?", leaning) is leaning
