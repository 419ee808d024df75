"""Benchmarks and the demo run the real code on small data made here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shitsuji.bench import run_japanese, run_latency, run_locomo, run_longmemeval
from shitsuji.bench.locomo import evidence_ids
from shitsuji.cli import main
from shitsuji.errors import UserInputError


def _locomo_file(tmp_path: Path) -> Path:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Aki",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Aki", "dia_id": "D1:1", "text": "I adopted a calico cat named Mochi last week"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! I started pottery classes on Sunday"},
                {"speaker": "Aki", "dia_id": "D1:3", "text": "My sister moved to Sapporo for work"},
            ],
            "session_2_date_time": "10:00 am on 2 June, 2023",  # a date with no session must be ignored
        },
        "qa": [
            {
                "question": "What is the name of Aki's cat?",
                "answer": "Mochi",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where did Aki's sister move?",
                "answer": "Sapporo",
                "evidence": ["D1:3; D9:99"],
                "category": 1,
            },
            {"question": "Unanswerable", "answer": "", "evidence": [], "category": 5},
        ],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_locomo_bench_scores_evidence(tmp_path: Path) -> None:
    data = run_locomo(_locomo_file(tmp_path), embedder="hash", k=1)
    assert data["overall"]["n"] == 2
    assert data["overall"]["recall"] == 1.0 and data["overall"]["hit"] == 1.0
    assert data["unresolved_evidence"] == 1  # D9:99 does not exist
    assert set(data["by_category"]) == {"single-hop", "multi-hop"}
    assert data["bm25"]["overall"]["n"] == 2
    sessions = data["session_level"]
    assert sessions["overall"]["n"] == 2 and sessions["overall"]["recall"] == 1.0
    assert sessions["overall"]["ndcg@1"] == 1.0 and sessions["prompt_tokens_p50"] > 0
    own = run_locomo(_locomo_file(tmp_path), embedder="hash", k=1, segments=True)["session_level_segments"]
    assert own["overall"]["n"] == 2 and own["overall"]["recall"] == 1.0 and own["overall"]["ndcg@1"] == 1.0
    assert list(own["by_category"]) == ["conv-x"]  # by conversation: the left-out folds


def test_evidence_ids_are_normalised() -> None:
    assert evidence_ids(["D8:6; D9:17", "D:11:26", "D30:05", "junk"]) == (
        ["D8:6", "D9:17", "D11:26", "D30:5"],
        1,
    )


def test_longmemeval_bench_pooled_and_not(tmp_path: Path) -> None:
    def q(qid: str, question: str, answer_sid: str, text: str) -> dict[str, object]:
        return {
            "question_id": qid,
            "question_type": "single-session-user",
            "question": question,
            "answer": "x",
            "haystack_session_ids": str([answer_sid, f"{qid}-noise"]),
            "haystack_sessions": [
                [{"role": "user", "content": text, "has_answer": True}],
                [{"role": "user", "content": f"unrelated chatter about weather {qid}", "has_answer": False}],
            ],
            "answer_session_ids": [answer_sid],
        }

    rows = [
        q("q1", "How long is my commute?", "s1", "My daily commute is 45 minutes each way"),
        q("q2", "What breed is my dog?", "s2", "My dog is a shiba inu"),
        q("q3_abs", "Skipped?", "s3", "abstention"),
    ]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    for pooled in (False, True):
        data = run_longmemeval(path, embedder="hash", k=1, pooled=pooled)
        overall = data["overall"]
        assert (overall["recall_any"], overall["recall_all"], overall["n"]) == (1.0, 1.0, 2)
        assert overall["recall_any@5"] == overall["recall_all@10"] == overall["ndcg@10"] == 1.0
        assert data["recall_p95_ms"] >= data["recall_p50_ms"] > 0
        assert data["prompt_tokens_p50"] > 0
    # the product's ranking of conversations beside the field's, from the same hits, per fold
    both = run_longmemeval(path, embedder="hash", k=1, pooled=True, segments=True)
    assert both["overall"] == data["overall"] and both["segments"]["overall"]["recall_all@5"] == 1.0
    assert [f["n"] for f in both["folds"]["segments"]] == [1, 1, 0, 0, 0]


def test_session_measures_as_the_field_reports_them() -> None:
    from math import log2

    from shitsuji.bench._measures import ndcg, session_scores, sessions_in_order

    ranked = sessions_in_order(["s1", "s1", "s2", "s3", "s2", "s4"], 3)
    assert ranked == ["s1", "s2", "s3"]
    assert ndcg(ranked, {"s2", "s3"}, 10) == (1 / log2(3) + 1 / log2(4)) / (1 + 1 / log2(3))
    assert ndcg(ranked, {"s9"}, 10) == 0.0
    scores = session_scores(ranked, {"s1", "s4"}, (1, 3))
    assert scores == {
        "recall_any@1": 1.0,
        "recall_all@1": 0.0,
        "recall_any@3": 1.0,
        "recall_all@3": 0.0,
        "ndcg@3": 1 / (1 + 1 / log2(3)),
    }


def test_japanese_bench_counts_cross_user_hits(tmp_path: Path) -> None:
    facts = [
        {"id": "a1", "user": "aki", "content": "アキは猫派"},
        {"id": "b1", "user": "ben", "content": "ベンは猫が苦手"},
    ]
    queries = [
        {"user": "aki", "query": "猫", "expected": ["a1"]},
        {"user": "ben", "query": "猫", "expected": ["b1"]},
    ]
    (tmp_path / "facts-dev.jsonl").write_text("\n".join(json.dumps(f) for f in facts), encoding="utf-8")
    (tmp_path / "queries-dev.jsonl").write_text("\n".join(json.dumps(q) for q in queries), encoding="utf-8")
    data = run_japanese(tmp_path, embedder="hash", k=3)
    assert data["hit"] == 1.0 and data["cross_user_hits"] == 0


def test_japanese_bench_remembers_facts_with_their_keys(tmp_path: Path) -> None:
    facts = [
        {"id": "a1", "user": "aki", "content": "アキはパクチーが大嫌い"},
        {"id": "a2", "user": "aki", "content": "アキは毎朝ヨガをする"},
    ]
    queries = [{"user": "aki", "query": "coriander", "expected": ["a1"]}]
    (tmp_path / "facts-dev.jsonl").write_text("\n".join(json.dumps(f) for f in facts), encoding="utf-8")
    (tmp_path / "queries-dev.jsonl").write_text(json.dumps(queries[0]), encoding="utf-8")
    keys = tmp_path / "keys.jsonl"
    keys.write_text(json.dumps({"id": "a1", "keys": ["coriander", "香草"]}), encoding="utf-8")
    without = run_japanese(tmp_path, embedder="hash", k=1)
    with_keys = run_japanese(tmp_path, embedder="hash", k=1, keys=keys)
    assert (without["keys"], with_keys["keys"]) == (0, 1)
    assert with_keys["hit"] == 1.0 and with_keys["misses"] == []
    (tmp_path / "bad.jsonl").write_text(json.dumps({"id": "a1", "keys": "coriander"}), encoding="utf-8")
    with pytest.raises(UserInputError, match="needs id \\(str\\), keys \\(list\\)"):
        run_japanese(tmp_path, embedder="hash", keys=tmp_path / "bad.jsonl")


def test_latency_bench_reports_every_figure() -> None:
    data = run_latency(embedder="hash", n=300, queries=10, remembers=10)
    for key in ("remember_p95_ms", "recall_p50_ms", "recall_p95_ms", "import_per_s", "peak_rss_mb"):
        assert data[key] > 0, key
    assert data["memories"] == 300
    assert data["exact_floor_p95_ms"] > 0 and data["recall_over_floor_p95"] > 0
    # CPU time beside wall time: the import costs CPU in this process; rows alone are part of it
    assert 0 < data["insert_rows_cpu_ms_per_memory"] <= data["import_cpu_ms_per_memory"]
    assert data["recall_cpu_p50_ms"] > 0 and data["recall_over_floor_cpu_p50"] > 0


def test_bench_cli_prints_one_json_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "sys.argv",
        ["shitsuji", "--embedder", "hash", "bench", "locomo", str(_locomo_file(tmp_path)), "--json"],
    )
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert 0 <= data["overall"]["recall"] <= 1 and "bm25" in data and "by_category" in data


def test_demo_keeps_spouses_apart(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr("sys.argv", ["shitsuji", "--embedder", "hash", "demo"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "duplicate=True" in out and "forget" in out and "restore" in out
    assert "[ OTHER]" not in out and "[shared]" in out and "[   own]" in out


def test_embedder_speed_bench_compares_side_by_side() -> None:
    from shitsuji.bench.embedders import run_embedders

    data = run_embedders(["hash", "nope"], docs=32, queries=5, batch=16)
    assert data["hash"]["docs_per_s"] > 0 and data["hash"]["query_ms_median"] > 0
    assert data["hash"]["model_id"] == "hash-256"
    assert "error" not in data["hash"] and "unknown embedder" in data["nope"]["error"]


def test_a_file_of_the_wrong_shape_gets_a_clear_error(tmp_path: Path) -> None:
    from shitsuji.errors import UserInputError

    path = tmp_path / "wrong.json"
    path.write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(UserInputError, match="not in LoCoMo format"):
        run_locomo(path, embedder="hash")
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(UserInputError, match="cannot read LongMemEval file"):
        run_longmemeval(path, embedder="hash")


def test_loop_bench_reports_overhead_per_round() -> None:
    from shitsuji.bench.loop import run_loop_bench

    data = run_loop_bench(rounds=3, turns=10)
    assert data["turns"] == 10 and 0 < data["round_overhead_p50_ms"] <= data["round_overhead_p95_ms"]


def test_context_bench_keeps_turns_flat_and_small(tmp_path: Path) -> None:
    from shitsuji.bench.context import run_context_bench

    lines = [
        {
            "speaker": "Aki" if i % 2 == 0 else "Ben",
            "dia_id": f"D1:{i + 1}",
            "text": f"line {i} about cats and tea " * 3,
        }
        for i in range(120)
    ]
    path = tmp_path / "long.json"
    path.write_text(
        json.dumps([{"sample_id": "x", "conversation": {"session_1": lines}, "qa": []}]), encoding="utf-8"
    )
    data = run_context_bench(path, turns_wanted=50, budget=150)
    [each] = data["each"]
    assert each["turns"] == 50 and data["conversations"] == 1
    assert each["turn_200_tokens"] < each["full_history_last_turn_tokens"] / 3
    assert each["flatness"] < 1.5 and each["max_turn_tokens"] < 600 and each["summarizer_calls"] > 0
    assert data["worst_max_share_of_full_history"] == each["max_share_of_full_history"] < 1 / 3


def test_web_bench_drives_the_real_server_over_loopback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["shitsuji", "bench", "web", "--sessions", "2", "--requests", "4", "--repeats", "1", "--json"]
    monkeypatch.setattr("sys.argv", [*argv[:1], "--embedder", "hash", *argv[1:]])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"] == 2 and data["embedder"] == "hash"
    for phase in ("http_chat", "direct_chat", "http_health"):
        row = data[phase]
        assert row["requests"] == 8 and row["errors"] == 0 and row["problems"] == [], (phase, row)
        assert row["p99_ms"] >= row["p50_ms"] > 0 and row["per_s"] > 0, (phase, row)
    for phase in ("http_chat", "direct_chat"):  # every turn streamed its reply
        assert 0 < data[phase]["first_text_p50_ms"] <= data[phase]["first_text_p99_ms"]
    assert data["http_share_of_direct_throughput"] > 0 and data["sign_in_p50_ms"] > 0
    # beside the chat (the default): LINE events stored by the server, its event loop's lag sampled
    assert data["line_webhook"]["posts"] >= 1 and data["line_webhook"]["refused"] == 0
    lag = data["loop_lag_during_chat"]
    assert lag["samples"] > 0 and 0 <= lag["p50_ms"] <= lag["p99_ms"] <= lag["max_ms"]


def test_the_packaged_japanese_set_with_shared_facts_loads() -> None:
    """Its shared facts have no ``user``; the loader refused them ("object 17 is not in the format")."""
    from importlib import resources

    folder = Path(str(resources.files("shitsuji.bench").joinpath("data/ja-recall")))
    data = run_japanese(folder, embedder="hash")
    assert data["queries"] == 25 and data["by_class"]["shared"]["n"] == 9
