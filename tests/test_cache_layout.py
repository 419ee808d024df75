"""Prompt caching you can see: the static prefix, the conversation before the turn, and the bench."""

from __future__ import annotations

from pathlib import Path

import pytest

from shitsuji.bench._cache_api import PrefixCache
from shitsuji.bench.cache import run_cache_bench
from shitsuji.llm import CONSERVATIVE, ModelRequest, request_params

PERSONA = {"type": "text", "text": "You are a butler. " * 300, "cache_control": {"type": "ephemeral"}}
TODAY = {"type": "text", "text": "Household now: 3 shopping items. Mode: task"}
HISTORY = [
    {"role": "user", "content": "牛乳を追加して"},
    {"role": "assistant", "content": [{"type": "text", "text": "カードを用意しました。"}]},
    {"role": "user", "content": "卵も"},
]


def shaped(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {"model": "m", "messages": HISTORY, "system": [PERSONA, TODAY], "turn_start": 2}
    return request_params(ModelRequest(**(base | overrides)), CONSERVATIVE)  # type: ignore[arg-type]


def test_per_turn_blocks_travel_with_the_turn_and_the_conversation_before_it_is_marked() -> None:
    sent = shaped()
    assert sent["system"] == [PERSONA]
    messages = sent["messages"]
    assert messages[2]["content"] == [TODAY, {"type": "text", "text": "卵も"}]  # type: ignore[index]
    assert messages[1]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # type: ignore[index]
    assert messages[0] == HISTORY[0]  # untouched
    assert HISTORY[2] == {"role": "user", "content": "卵も"}  # the stored conversation is not changed


def test_a_tool_round_marks_the_end_of_the_request_and_requests_without_a_turn_stay_as_given() -> None:
    rounds = [
        *HISTORY,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
    ]
    rounds.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]})
    sent = shaped(messages=rounds)
    assert sent["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # type: ignore[index]
    plain = shaped(turn_start=None)
    assert plain["system"] == [PERSONA, TODAY] and plain["messages"] == HISTORY


def test_the_fake_reads_the_longest_written_prefix_and_skips_short_ones() -> None:
    cache = PrefixCache(min_tokens=1024)
    first = shaped()
    _, read, written = cache.bill(first)
    assert read == 0 and written > 1024
    again = cache.bill(first)
    assert again[1] == read + written and again[2] == 0  # everything up to the last breakpoint is read
    short = PrefixCache(min_tokens=10**6)
    assert short.bill(first)[1:] == (0, 0)  # below the minimum: neither read nor written


def test_bench_cache_reads_most_of_each_turn_from_the_third_turn_on() -> None:
    data = run_cache_bench(turns=24)  # long enough for the window to fold (the old depth, 0.8, beside it)
    shares, before = data["per_turn_share"], data["baseline"]
    assert shares[0] == 0.0 and all(s >= 0.8 for s in shares[2:]), shares
    assert data["cost_per_turn_median_usd"] < data["cost_per_turn_uncached_median_usd"] / 2
    # a fold re-sends the window uncached: folding down to half folds less often, and each fold is cheaper
    assert 0 < data["turns_with_a_fold"] < before["turns_with_a_fold"]
    folded = [s for s, fold in zip(shares, data["per_turn_fold"], strict=True) if fold]
    folded_before = [
        s for s, fold in zip(before["per_turn_share"], before["per_turn_fold"], strict=True) if fold
    ]
    assert min(folded) > min(folded_before) and data["cost_total_vs_baseline"] < 1


def test_a_mode_may_set_how_deep_the_window_folds(tmp_path: Path) -> None:
    from shitsuji.agent import load_modes
    from shitsuji.errors import UserInputError

    config = tmp_path / "modes.toml"
    config.write_text("[modes.task]\nwindow_refill = 0.7\n", encoding="utf-8")
    assert load_modes(config)["task"].window_refill == 0.7
    assert load_modes(None)["task"].window_refill == 0.5
    config.write_text("[modes.task]\nwindow_refill = 1.0\n", encoding="utf-8")
    with pytest.raises(UserInputError, match=r"window_refill must be 0\.1-0\.95"):
        load_modes(config)


def test_the_price_table_in_the_docs_is_the_one_the_bench_uses() -> None:
    from shitsuji.bench.cache import PRICES

    docs = (Path(__file__).parent.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    table = docs[docs.index("### Prices used") :]
    for model, prices in PRICES.items():
        row = "| " + " | ".join([model, *(f"{p:.2f}" for p in prices)]) + " |"
        assert row in table, row
