"""A question that asks for a recommendation or advice is searched by the words of what it asks about
(issue 23 pf29).

"Can you recommend a book that I might find interesting?": the words that ask ("recommend", "find",
"interesting") are in every note that asked or answered for a recommendation, and none is in the note
that answers — the asker's own taste. Each case asks through ``MemoryEngine.recall`` (a real SQLite
file, then PostgreSQL, whose keyword search is its own; the package's deterministic embedder), with the
rule on and off.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from shitsuji.memory import MemoryEngine
from shitsuji.memory._advice import asked_terms, asks_for_advice, without_request
from shitsuji.memory._recall import RecallWeights

SCOPE = "household/futari/user/aki"

ENGLISH: dict[str, Any] = {
    "taste": "I love a slow detective novel on the train, the older the better",
    "noise": [
        "Could you recommend a café? I might find one interesting near the station",
        "I'd recommend the museum, you might find the old maps interesting",
        "Ken borrowed my novel last week",
        # the rest of a household's notes, none with a word of the question
        *(f"Bin day {n} moved to the morning, the green lid goes out first" for n in range(30)),
    ],
    "question": "Can you recommend a detective novel that I might find interesting?",
}
JAPANESE: dict[str, Any] = {
    "taste": "アキは時代小説が好きで、寝る前に少しずつ読んでいる",
    "noise": [
        "手土産は何がいいかな、と店員さんのおすすめを聞いた",
        "パンは何がいいかな、おすすめのパン屋が駅前にある",
        *(f"燃えるゴミは{n}番の集積所に朝八時までに出す" for n in range(30)),
    ],
    "question": "小説は何がいいかな？おすすめある？",
}


@pytest.fixture
def memory_target(target: str) -> str:
    """The recall cases run on both engines."""
    return target


def _ask(engine: MemoryEngine, case: dict[str, Any], w: RecallWeights) -> list[str]:
    for note in [case["taste"], *case["noise"]]:
        engine.remember(note, SCOPE)
    engine.weights = w
    return [h.memory.content for h in engine.recall(case["question"], SCOPE, k=3)]


@pytest.mark.parametrize("case", [ENGLISH, JAPANESE], ids=["english", "japanese"])
def test_a_request_for_advice_finds_the_askers_taste(engine: MemoryEngine, case: dict[str, Any]) -> None:
    assert _ask(engine, case, RecallWeights())[0] == case["taste"]


@pytest.mark.parametrize("case", [ENGLISH, JAPANESE], ids=["english", "japanese"])
def test_the_rule_off_gives_the_ranking_of_before(engine: MemoryEngine, case: dict[str, Any]) -> None:
    assert _ask(engine, case, replace(RecallWeights(), advice_by_topic=False))[0] != case["taste"]


@pytest.mark.parametrize(
    ("question", "advice"),
    [
        ("Can you recommend a show or movie for me to watch tonight?", True),
        ("I'm not sure which one to choose. Any suggestions?", True),
        ("What do you recommend for a rainy Sunday?", True),
        ("Do you have any tips for my slow cooker?", True),
        ("週末に見る映画でおすすめある？", True),
        ("誕生日プレゼントは何がいいかな", True),
        ("Did the doctor give any advice about my knee?", False),  # a fact, not a request
        ("Who recommended the dentist to me?", False),
        ("What did I buy at the hardware store?", False),
        ("歯医者を勧めてくれたのは誰？", False),
        # the ways of asking that name what the asker plans (``_when``: its "tonight" is no span), one rule
        ("What should I cook this week?", True),
        ("What can we cook tonight?", True),
        ("Not sure what to wear tonight", True),
        ("今晩は何を作ればいい？", True),
        ("今年の夏に行くべき場所は？", True),
        ("週末の過ごし方を提案してほしい", True),
        ("How much tip did I leave tonight?", False),
        ("Can I see what I bought today?", False),
        ("Where did Maria get the idea for the castle shadow box?", False),
        ("What advice does Gina give to Jon about his business?", False),
    ],
)
def test_questions_that_ask_for_advice(question: str, advice: bool) -> None:
    assert asks_for_advice(question) is advice


def test_the_keywords_leave_out_only_the_request() -> None:
    w = RecallWeights()
    asked = asked_terms(
        "Can you recommend some recent publications or conferences that I might find interesting?", w
    )
    assert "recommend" not in asked and "interest" not in asked and "find" not in asked
    assert "confer" in asked
    assert without_request("Where did I park?") == "Where did I park?"
    # nothing but the request left: the question's own terms, not an empty search
    assert asked_terms("Any suggestions?", w) == ["suggest"]
    assert asked_terms("おすすめは？", w) == asked_terms("おすすめは？", replace(w, advice_by_topic=False))


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What should I cook this week?", ["cook", "week"]),
        # the words that ask, not the verb before them: 作れば stays
        ("今晩は何を作ればいい？", asked_terms("今晩は何を作れば ？", RecallWeights(advice_by_topic=False))),
        (
            "今年の夏に行くべき場所は？",
            asked_terms("今年の夏に行く 場所は？", RecallWeights(advice_by_topic=False)),
        ),
        # a fact about a recommendation keeps its words
        ("Who recommended the dentist?", ["recommend", "dentist"]),
        (
            "歯医者を勧めてくれたのは誰？",
            asked_terms("歯医者を勧めてくれたのは誰？", RecallWeights(advice_by_topic=False)),
        ),
    ],
)
def test_the_keywords_of_the_one_rule(question: str, asked: list[str]) -> None:
    """What asks for advice in ``_when`` is what is left out of the keywords (issue 23, ad30)."""
    assert asked_terms(question, RecallWeights()) == asked
