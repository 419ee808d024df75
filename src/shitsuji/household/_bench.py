"""How much prompt the count index saves against sending the household's data.

The design sends a one-line count index each turn instead of every list. This benchmark
builds a household of ``items`` rows in a temporary database, then measures the index
against a compact JSON dump of all the household's rows, and whole requests (system
blocks, tool definitions, a user message) built each way. The issue's target: the
request with the index is at most 15% of the full-data request at 200 items.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from ..agent import DEFAULT_MODES, system_blocks
from ..llm._tokens import estimate_tokens as _estimate
from ..store import open_database
from ._index import count_index
from ._store import HouseholdStore
from ._tools import household_toolbox

TARGET_RATIO = 0.15
USER_MESSAGE = "今月の食費はいくら？ それと明日の予定を教えて"
TODAY = date(2026, 12, 1)

_SHOPPING = (
    "牛乳",
    "卵",
    "食パン",
    "トイレットペーパー",
    "洗剤",
    "りんご",
    "鶏むね肉",
    "豆腐",
    "納豆",
    "お米 5kg",
)
_EVENTS = ("歯医者", "保育園の面談", "美容院", "実家に帰省", "健康診断", "友人と夕食", "車検", "町内会")
_TODOS = ("年賀状を書く", "ガス代を払う", "網戸を掃除", "車検の予約", "粗大ごみの申し込み", "保険の見直し")
_EXPENSES = (("食費", "スーパー"), ("日用品", "ドラッグストア"), ("交通費", "電車"), ("外食", "ランチ"))


def estimate_tokens(text: str) -> int:
    """A provider-free token estimate: ~1 token per CJK character, ~4 characters per token otherwise.

    Claude's tokenizer spends about one token per kana or kanji and about one per four
    Latin characters; counting both ways keeps Japanese from being under-counted. It is
    the estimator the prompt builder budgets with (``shitsuji.llm._tokens``).
    """
    return _estimate(text)


def _fill(store: HouseholdStore, household: str, items: int) -> None:
    """``items`` rows spread evenly over shopping, events, to-dos and this month's expenses."""
    members = ("wife", "husband")
    for n in range(items):
        who = members[n % 2]
        kind, i = n % 4, n // 4
        if kind == 0:
            store.add_shopping_item(household, _SHOPPING[i % len(_SHOPPING)], 1 + i % 3, by=who)
        elif kind == 1:
            start = datetime.combine(TODAY + timedelta(days=i % 60), datetime.min.time()).replace(
                hour=9 + i % 9
            )
            end = (start + timedelta(hours=1)).isoformat(timespec="minutes")
            note = "持ち物を確認" if i % 3 == 0 else None
            store.add_event(
                household, _EVENTS[i % len(_EVENTS)], start.isoformat(timespec="minutes"), end, note, by=who
            )
        elif kind == 2:
            due = (TODAY + timedelta(days=i % 30)).isoformat() if i % 2 else None
            store.add_todo(household, _TODOS[i % len(_TODOS)], due, by=who)
        else:
            category, note = _EXPENSES[i % len(_EXPENSES)]
            day = TODAY + timedelta(days=i % 28)
            store.add_expense(household, 300 + 137 * i % 9000, category, note, day, by=who)


def prompt_tokens_benchmark(items: int = 200) -> dict[str, Any]:
    """Characters and estimated tokens of the count index versus a full JSON dump, and their ratio."""
    if items < 0:
        raise ValueError(f"items must be 0 or more, got {items}")
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-") as tmp:
        store = HouseholdStore(
            open_database(Path(tmp) / "bench.db"),
            clock=lambda: datetime.combine(TODAY, datetime.min.time(), UTC),
        )
        try:
            store.create("bench", ["wife", "husband"])
            _fill(store, "bench", items)
            index = count_index(store, "bench", TODAY)
            dump = json.dumps(store.dump("bench"), ensure_ascii=False, separators=(",", ":"))
        finally:
            store.close()
    index_tokens, dump_tokens = estimate_tokens(index), estimate_tokens(dump)
    with_index, with_data = _request_tokens(index, None), _request_tokens(None, dump)
    ratio = with_index / with_data
    return {
        "items": items,
        "count_index": {"text": index, "chars": len(index), "tokens": index_tokens},
        "full_data": {"chars": len(dump), "tokens": dump_tokens},
        "ratio_chars": round(len(index) / len(dump), 4),
        "ratio_tokens": round(index_tokens / dump_tokens, 4),
        "request_tokens_with_index": with_index,
        "request_tokens_with_full_data": with_data,
        "ratio_request": round(ratio, 4),
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio <= TARGET_RATIO,
    }


def _request_tokens(index: str | None, dump: str | None) -> int:
    """A whole turn's input as sent: system blocks, tool definitions and the user's message."""
    system = system_blocks(DEFAULT_MODES["task"], count_index=index)
    if dump is not None:
        system.append({"type": "text", "text": f"Household data: {dump}"})
    tools = json.dumps(household_toolbox().definitions(), ensure_ascii=False, separators=(",", ":"))
    texts = [b["text"] for b in system] + [tools, USER_MESSAGE]
    return sum(estimate_tokens(t) for t in texts)
