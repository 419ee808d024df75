"""``bench time``: the labelled set of time questions loads and is checked, and the bench scores the
real engine's answers with the asker's clock and zone — each rule's gain, and a wrong label's miss."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from shitsuji.bench.time_questions import load_time_set, run_time_questions
from shitsuji.cli import main
from shitsuji.errors import UserInputError

# A household in Tokyo. At 00:30 on 1 December in Tokyo it is still 30 November in UTC: "先月" is
# November there (the flea market), October only if read in UTC (the bakery). The kettle is said
# after the question: not yet known when it is asked.
TINY: dict[str, Any] = {
    "rule": "test set",
    "households": [
        {
            "id": "mori",
            "zone": "Asia/Tokyo",
            "facts": [
                {"id": "f1", "member": "aki", "said": "2026-10-20T10:00:00+09:00", "text": "パン屋で何を買うか迷って、食パンを買った。"},
                {"id": "f2", "member": "aki", "said": "2026-11-05T10:00:00+09:00", "text": "フリーマーケットで古い椅子を買った。"},
                {"id": "f3", "member": "aki", "said": "2026-12-02T10:00:00+09:00", "text": "何を買うか迷ったが、電気ケトルを買った。"},
                {"id": "f4", "member": "shared", "said": "2026-06-01T10:00:00+09:00", "text": "家の鍵は玄関の棚の上。"},
                {"id": "f5", "member": "ben", "said": "2026-06-01T10:00:00+09:00", "text": "ベンの秘密のメモ。"},
            ],
            "questions": [
                {"id": "q1", "member": "aki", "now": "2026-12-01T00:30:00+09:00", "kind": "last_month", "lang": "ja", "text": "先月何を買った？", "expected": ["f2"]},
                {"id": "q2", "member": "aki", "now": "2026-12-01T00:30:00+09:00", "kind": "control", "lang": "ja", "text": "家の鍵はどこ？", "expected": ["f4"]},
            ],
        }
    ],
}  # fmt: skip


def _write(tmp_path: Path, data: dict[str, Any], name: str = "set.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_packaged_set_holds_both_languages_every_kind_and_the_date_line() -> None:
    time_set = load_time_set()
    questions = time_set.questions
    assert len(questions) >= 60 and len({q.household for q in questions}) >= 3
    ja = sum(q.lang == "ja" for q in questions)
    assert 0.4 <= ja / len(questions) <= 0.6
    kinds = {q.kind for q in questions}
    assert {"yesterday", "last_week", "last_month", "last_season", "named_month"} <= kinds
    assert {"about_date", "current", "lately", "control"} <= kinds
    # facts said on the other side of the date line from a question of their household
    households = {q.household: q.zone for q in questions}
    assert any(
        f.zone.utcoffset(f.said) != households[f.scope.split("/")[1]].utcoffset(f.said)
        for f in time_set.facts
    )
    assert "labelled" in time_set.rule and "asker's" in time_set.rule


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["households"][0]["questions"][0].update(expected=["f5"]), "ben's fact"),
        (lambda d: d["households"][0]["questions"][0].update(expected=["nope"]), "no fact of its household"),
        (lambda d: d["households"][0]["facts"][0].update(said="2026-10-20T10:00:00"), "no UTC offset"),
        (lambda d: d["households"][0]["facts"][1].update(id="f1"), "repeated"),
        (lambda d: d["households"][0].update(zone="Mars/Olympus"), "unknown time zone"),
    ],
)
def test_a_set_with_a_wrong_label_or_time_is_refused(tmp_path: Path, change: Any, says: str) -> None:
    data = copy.deepcopy(TINY)
    change(data)
    with pytest.raises(UserInputError) as refused:
        load_time_set(_write(tmp_path, data))
    assert says.replace("ben's fact", "a fact aki cannot see") in str(refused.value)


def test_the_span_rule_is_scored_in_the_askers_zone_and_clock(tmp_path: Path) -> None:
    data = run_time_questions(_write(tmp_path, TINY), embedder="hash")
    ranks = data["ranks"]
    # November in Tokyo: the flea market first; without the span rule the bakery (more shared words)
    assert ranks["q1"]["shipped"] == 0 and ranks["q1"]["without_span"] != 0
    assert data["rules"]["shipped"]["by_kind"]["last_month"]["hit_at_1"] == 1.0
    assert data["rules"]["without_span"]["by_kind"]["last_month"]["hit_at_1"] == 0.0
    assert data["rules"]["shipped"]["by_lang"]["ja"]["n"] == 2
    # the kettle was said after the question: never among its answers
    assert "f3" not in data["tops"]["q1"] and data["tops"]["q1"][0] == "f2"
    assert set(data["leave_one_out"]["by_household"]) == {"mori"}


def test_a_wrong_label_is_scored_as_a_miss(tmp_path: Path) -> None:
    wrong = copy.deepcopy(TINY)
    wrong["households"][0]["questions"][0]["expected"] = ["f1"]  # the bakery: October, not last month
    data = run_time_questions(_write(tmp_path, wrong), embedder="hash")
    assert data["rules"]["shipped"]["by_kind"]["last_month"]["hit_at_1"] == 0.0
    assert data["ranks"]["q1"]["shipped"] != 0 and data["rules"]["shipped"]["overall"]["hit_at_1"] == 0.5


def test_distractors_are_said_in_each_askers_scope_before_the_questions(tmp_path: Path) -> None:
    data = run_time_questions(_write(tmp_path, TINY), embedder="hash", distractors=30)
    assert data["distractors"] == 30  # one asker (aki): thirty synthetic facts in her scope
    # they compete: some of the first three hits of a question are not from the set
    assert any("" in top for top in data["tops"].values())


def test_bench_time_cli_prints_one_json_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, TINY)
    monkeypatch.setattr("sys.argv", ["shitsuji", "--embedder", "hash", "bench", "time", str(path), "--json"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["questions"] == 2 and set(data["rules"]) == {
        "shipped",
        "without_span",
        "without_newer",
        "without_both",
    }
