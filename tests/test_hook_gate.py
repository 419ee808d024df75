"""The hook server's relative gate: a candidate is judged by how far it stands out from the others."""

from __future__ import annotations

import pytest

from shitsuji.bench.hook_relevance import Case, Scored, score
from shitsuji.hooks import Gate
from shitsuji.hooks._context import relative_scores


def test_each_score_is_compared_with_the_mean_of_the_others() -> None:
    assert relative_scores([1.0, 0.4, 0.1]) == pytest.approx([0.75, -0.15, -0.6])
    assert relative_scores([0.9]) == [0.9]  # nothing to compare with: the score itself
    assert relative_scores([]) == []


def _case(prompt: str, fused: list[float], expect: set[str]) -> Case:
    """Candidates whose fused score (centred first-model cosine + 2 x second model's) is ``fused``."""
    hits = [Scored(f"m{i}", 0.0, 0, second=s / 2, centred=0.0) for i, s in enumerate(fused)]
    return Case(prompt, frozenset(expect), hits, prompt_terms=3)


def test_a_general_question_near_every_note_gets_nothing_while_a_standout_is_shown() -> None:
    """'explain async/await' scores 0.85 with one note and 0.80, 0.72, 0.69 with the next: no note
    stands out, so the relative gate shows nothing where an absolute threshold of 0.8 showed two."""
    general = _case("explain how async/await works in Python", [0.85, 0.80, 0.72, 0.69, 0.5, 0.4], set())
    asked = _case("when are we allowed to ship a release?", [0.78, 0.51, 0.31, 0.26, 0.2, 0.2], {"m0"})
    absolute = Gate(meaning=0.75, meaning_with_words=0.75, chatter=1.01, second_weight=2.0)
    relative = Gate(meaning=0.3, meaning_with_words=0.3, chatter=1.01, second_weight=2.0, relative=True)
    assert score([general, asked], absolute)["noise"] == 1.0
    assert score([general, asked], relative)["noise"] == 0.0
    assert score([general, asked], relative)["right"] == 1.0
