"""The hook relevance bench's fourth labelled set (projects of its own) and its leave-one-set-out check."""

from __future__ import annotations

import re

from shitsuji.bench.hook_relevance import (
    FRESH,
    HELD_OUT,
    PROJECTS,
    Case,
    Scored,
    leave_one_set_out,
    load_set,
)

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_the_projects_set_labels_its_prompts_with_its_own_memories_in_both_languages() -> None:
    data = load_set(PROJECTS)
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
    earlier = {
        p["prompt"] for name in ("hook_relevance.json", HELD_OUT, FRESH) for p in load_set(name)["prompts"]
    }
    assert not earlier & {p["prompt"] for p in data["prompts"]}


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
