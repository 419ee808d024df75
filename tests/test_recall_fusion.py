"""Fusion rules of issue 23: shared facts found as readily as a member's own, and a Japanese
question's loose bigram matches kept from outranking the memory that means the answer."""

from __future__ import annotations

import pytest

from shitsuji.memory import MemoryEngine, lineage
from shitsuji.memory._recall import (
    Fused,
    RecallWeights,
    cross_script,
    fuse,
    keyword_coverage,
    standout_of,
    weigh,
)
from shitsuji.memory._slots import Match

from .conftest import Clock

WIFE = "household/futari/user/wife"
HOME = "household/futari"
BEFORE = RecallWeights(ancestor_penalty=0.85, further_level_penalty=0.95, keyword_coverage=False)


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def test_a_shared_fact_that_matches_a_little_better_comes_before_a_members_own(
    engine: MemoryEngine, clock: Clock
) -> None:
    shared = engine.remember("the recycling goes out on the second wednesday", HOME).memory
    own = engine.remember("the recycling bags are blue", WIFE).memory
    fused = {shared.id: Fused(score=1.0), own.id: Fused(score=0.9)}
    memories = {m.id: m for m in (shared, own)}
    distances = {s: d for d, s in enumerate(lineage(WIFE))}
    first = [h.memory.id for h in weigh(fused, memories, distances, clock.now, RecallWeights())]
    before = [h.memory.id for h in weigh(fused, memories, distances, clock.now, BEFORE)]
    assert first == [shared.id, own.id]
    assert before == [own.id, shared.id]  # x 0.85 x 0.95 for the household two levels up buried it


def test_a_japanese_partial_match_does_not_outrank_the_meaning() -> None:
    asked = ["結婚", "婚記", "記念", "念日", "日は", "はい", "いつ", "結", "婚", "記", "念", "日"]
    held = {
        "birthday": {"アキ", "キの", "の誕", "誕生", "生日", "日は", "誕", "生", "日"},  # shares 日は and 日
        "anniversary": set(),  # the English note: no keyword match, the best vector
    }
    ranked = {
        "keyword": [Match("birthday", 5.4, 0), Match("other", 1.0, 0)],
        "vector": [Match("anniversary", 0.46, 0), Match("birthday", 0.37, 0), Match("other", 0.1, 0)],
    }
    weights = {"keyword": 1.0, "vector": 1.25}
    coverage = keyword_coverage(asked, {**held, "other": {"日"}})
    assert coverage["birthday"] == pytest.approx(2 / 12)
    plain = fuse(ranked, weights)
    scaled = fuse(ranked, weights, {"keyword": coverage})
    assert max(plain, key=lambda m: plain[m].score) == "birthday"
    assert max(scaled, key=lambda m: scaled[m].score) == "anniversary"


def test_an_english_question_keeps_plain_keyword_fusion(engine: MemoryEngine) -> None:
    engine.remember("Caroline went to the LGBTQ support group on Tuesday", WIFE)
    engine.remember("Melanie painted a sunrise over the lake last year", WIFE)
    hits = engine.recall("When did Caroline go to the support group?", WIFE, k=2)
    assert hits[0].memory.content.startswith("Caroline")


def test_a_signal_whose_best_match_stands_out_counts_more_than_a_flat_one() -> None:
    # keywords: four turns share the question's common words, none stands out; meaning: one does
    ranked = {
        "keyword": [
            Match("a", 2.1, 0),
            Match("b", 2.0, 0),
            Match("c", 2.0, 0),
            Match("d", 1.8, 0),
            Match("e", 1.0, 0),
        ],
        "vector": [
            Match("d", 0.8, 0),
            Match("a", 0.3, 0),
            Match("b", 0.3, 0),
            Match("c", 0.3, 0),
            Match("e", 0.2, 0),
        ],
    }
    weights = {"keyword": 1.0, "vector": 0.25}
    plain = fuse(ranked, weights)
    weighed = fuse(ranked, weights, standout=True)
    assert max(plain, key=lambda m: plain[m].score) == "a"  # min-max: the flat list's top is worth 1.0
    assert max(weighed, key=lambda m: weighed[m].score) == "d"
    assert weighed["d"].signals == {"keyword": 1.8, "vector": 0.8}  # raw scores kept for later rules


def test_a_list_that_says_nothing_about_its_doubt_keeps_its_weight() -> None:
    assert standout_of([1.0]) == 1.0  # one match
    assert standout_of([1.0, 0.0]) == 1.0  # two matches: min-max gives 1 and 0 whatever their gap
    assert standout_of([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.75)
    alone = fuse({"keyword": [Match("only", 3.0, 0)]}, {"keyword": 1.0}, standout=True)
    assert alone["only"].score == 1.0


def test_a_list_of_equal_scores_weighs_the_chance_that_its_pick_is_right() -> None:
    # min-max makes each of n equal matches 1.0, as if each were the one best: 1/n of the weight (ja27)
    assert standout_of([1.0, 1.0, 1.0]) == pytest.approx(1 / 3)
    assert standout_of([1.0, 1.0]) == 0.5
    flat = fuse({"keyword": [Match(m, 3.258, 0) for m in "abcd"]}, {"keyword": 1.0}, standout=True)
    assert {m: f.score for m, f in flat.items()} == {m: 0.25 for m in "abcd"}


def test_an_english_question_weighs_a_japanese_note_by_the_signal_that_sees_it(engine: MemoryEngine) -> None:
    osaka = engine.remember("ベンは大阪出身", WIFE).memory  # the best match by meaning; no word in common
    birthday = engine.remember("Ben's birthday is on February 18", WIFE).memory  # shares "ben" alone
    memories = {m.id: m for m in (osaka, birthday)}
    ranked = {
        "keyword": [Match(birthday.id, 2.1, 0)],
        "vector": [Match(osaka.id, 0.40, 0), Match(birthday.id, 0.28, 0), Match("other", 0.05, 0)],
    }
    w = RecallWeights()
    weights = {"keyword": w.keyword_weight, "vector": w.vector_weight}
    factors = cross_script(ranked["vector"], memories, w)
    assert factors == {osaka.id: pytest.approx((1.0 + 0.4) / 0.4)}  # the English note keeps its own
    plain = fuse(ranked, weights)
    scaled = fuse(ranked, weights, {"vector": factors})
    assert max(plain, key=lambda m: plain[m].score) == birthday.id  # "ben" by words won before
    assert max(scaled, key=lambda m: scaled[m].score) == osaka.id
