"""The hook relevance bench's fourth and fifth labelled sets (projects of their own), its leave-one-set-out
check, and the fifth set held back from every fold."""

from __future__ import annotations

import re

import pytest

from shitsuji.bench.hook_relevance import (
    FIFTH,
    FRESH,
    HELD_BACK,
    HELD_OUT,
    PROJECTS,
    Case,
    Scored,
    _folds,
    leave_one_set_out,
    load_set,
)

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("name", "earlier_sets"),
    [
        (PROJECTS, ("hook_relevance.json", HELD_OUT, FRESH)),
        (FIFTH, ("hook_relevance.json", HELD_OUT, FRESH, PROJECTS)),
    ],
)
def test_a_projects_set_labels_its_prompts_with_its_own_memories_in_both_languages(
    name: str, earlier_sets: tuple[str, ...]
) -> None:
    data = load_set(name)
    ids = {m["id"] for m in data["memories"]}
    assert {m["scope"] for m in data["memories"]} <= {*data["projects"], "parent"}
    assert all(p["project"] in data["projects"] and set(p["expect"]) <= ids for p in data["prompts"])
    need = [p for p in data["prompts"] if p["expect"]]
    assert {e for p in need for e in p["expect"]} == ids  # every memory is asked for at least once
    assert len(need) >= 40 and len(data["prompts"]) - len(need) >= 20
    for prompts in (need, [p for p in data["prompts"] if not p["expect"]]):
        assert any(JAPANESE.search(p["prompt"]) for p in prompts)
        assert any(not JAPANESE.search(p["prompt"]) for p in prompts)
    assert "rule" in data  # the labelling rule, stated once
    earlier = {p["prompt"] for other in earlier_sets for p in load_set(other)["prompts"]}
    assert not earlier & {p["prompt"] for p in data["prompts"]}


def test_the_fifth_set_states_the_fourth_sets_rule_and_has_projects_of_different_sizes() -> None:
    fourth, fifth = load_set(PROJECTS), load_set(FIFTH)
    assert fourth["rule"].startswith(fifth["rule"])  # the same rule (the fourth adds its worked example)
    sizes = sorted(sum(m["scope"] == p for m in fifth["memories"]) for p in fifth["projects"])
    assert sizes[0] <= 3 and sizes[-1] >= 12


def _case(score: float, expect: set[str]) -> Case:
    return Case("p", frozenset(expect), [Scored("m", score, 0)], prompt_terms=3)


def test_each_set_is_scored_with_the_gate_calibrated_on_the_others_only() -> None:
    """Set x separates at a high cosine, set y at a low one: a gate tuned on x misses y's answers,
    one tuned on y lets x's unrelated prompts through — what x and y each get from the other."""
    x = [_case(0.7, {"m"}), _case(0.6, set())]
    y = [_case(0.35, {"m"}), _case(0.25, set())]
    out = leave_one_set_out({"x": x, "y": y}, [0.0])
    assert out["x"]["tuned"]["meaning"] < 0.6 and out["x"]["scored"]["noise"] == 1.0
    assert out["y"]["tuned"]["meaning"] > 0.35 and out["y"]["scored"]["right"] == 0.0


def test_the_fifth_set_is_in_no_fold_and_is_scored_with_the_gate_of_the_four() -> None:
    """The held-back set separates at 0.35 only: had it been in a fold, the set it was pooled with would
    have been tuned down to it; held back, every fold keeps the gate of the others, and it gets the gate
    of the four together — which misses its answers, as a gate tuned elsewhere would."""
    x = [_case(0.7, {"m"}), _case(0.6, set())]
    y = [_case(0.75, {"m"}), _case(0.55, set())]
    held = [_case(0.35, {"m"}), _case(0.25, set())]
    out = _folds({"x": x, "y": y, HELD_BACK: held}, [0.0])
    assert set(out["leave_one_set_out"]) == {"x", "y"}
    assert out["leave_one_set_out"]["x"]["tuned"]["meaning"] > 0.55  # y's gate, not the held set's
    assert out["held_back"]["tuned"]["meaning"] > 0.6 and out["held_back"]["scored"]["right"] == 0.0
    # tuned on itself, the held set separates (0.35 vs 0.25): the ceiling a gate of this form reaches there
    itself = out["calibrated_on_itself"][HELD_BACK]
    assert itself["scored"] == {**itself["scored"], "right": 1.0, "noise": 0.0}
