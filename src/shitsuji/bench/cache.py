"""How much of each turn's input is read from the prompt cache, and what a turn costs.

A 50-turn household conversation (shopping, plans, money, small questions, in Japanese and English)
goes through the real service, the real Anthropic SDK and our request shaping, to a local API that
caches by prefix as the real one does (``_cache_api``). Per turn we add up the chat requests' usage —
plain input, cache reads, cache writes, output — and price it from ``PRICES``, the table in
docs/benchmarks.md ("Prices used"). The router's and summariser's requests are priced apart.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..agent import DEFAULT_MODES, KEEP, Finished
from ..context import REFILL
from ..household import Butler, HouseholdStore
from ..llm import CHEAP_MODEL, AnthropicModel, CacheTTL, CapabilityTable
from ..memory import ExtractionSettings, HashEmbedder, MemoryEngine, open_store
from ..store import database
from ._cache_api import Billed, CachingMessagesAPI

# US dollars per million tokens: input, 5-minute cache write, 1-hour cache write, cache read, output
PRICES: dict[str, tuple[float, float, float, float, float]] = {
    "claude-opus-4-7": (5.0, 6.25, 10.0, 0.50, 25.0),
    "claude-opus-4-6": (5.0, 6.25, 10.0, 0.50, 25.0),
    "claude-sonnet-4-6": (3.0, 3.75, 6.0, 0.30, 15.0),
    "claude-sonnet-4-5": (3.0, 3.75, 6.0, 0.30, 15.0),
    "claude-haiku-4-5": (1.0, 1.25, 2.0, 0.10, 5.0),
}

SAID = [
    "牛乳と卵を買い物リストに入れておいて",
    "What's on the shopping list?",
    "土曜日の午後は空いてる？",
    "Remind me what we spent on groceries this week",
    "ありがとう、助かります",
    "来週の月曜に歯医者の予約がある",
    "Can you check the to-dos for the weekend?",
    "トイレットペーパーがもうすぐなくなる",
    "How much did we spend on eating out this month?",
    "夕飯は何にしようかな",
]


def _cost(model: str, bill: Billed, ttl: CacheTTL) -> float:
    plain, write_5m, write_1h, read, output = PRICES[model]
    write = write_1h if ttl == "1h" else write_5m
    dollars = bill.input_tokens * plain + bill.cache_write * write + bill.cache_read * read
    return (dollars + bill.output_tokens * output) / 1_000_000


def _uncached_cost(model: str, bill: Billed) -> float:
    plain, *_, output = PRICES[model]
    total = bill.input_tokens + bill.cache_write + bill.cache_read
    return (total * plain + bill.output_tokens * output) / 1_000_000


def _sum(bills: list[Billed]) -> Billed:
    return Billed(
        "turn",
        sum(b.input_tokens for b in bills),
        sum(b.cache_read for b in bills),
        sum(b.cache_write for b in bills),
        sum(b.output_tokens for b in bills),
    )


BASELINE_REFILL = 0.8  # the fold depth before issue 22's rework, run beside the current one


def run_cache_bench(
    *,
    turns: int = 50,
    model: str = "claude-sonnet-4-6",
    ttl: CacheTTL = "5m",
    refill: float = REFILL,
    baseline_refill: float | None = BASELINE_REFILL,
) -> dict[str, Any]:
    """The figures for windows folded down to ``refill``; with ``baseline_refill``, the same conversation
    folded down to that share is run beside it (``baseline``) and both per-turn shares are listed."""
    if model not in PRICES:
        raise ValueError(f"no price for {model}: choose one of {', '.join(PRICES)}")
    data = _figures(turns, model, ttl, refill)
    if baseline_refill is not None:
        beside = _figures(turns, model, ttl, baseline_refill)
        data["baseline"] = {k: v for k, v in beside.items() if k not in ("model", "ttl", "turns")}
        data["cost_total_vs_baseline"] = round(data["cost_total_usd"] / beside["cost_total_usd"], 3)
    return data


def _figures(turns: int, model: str, ttl: CacheTTL, refill: float) -> dict[str, Any]:
    minimum = CapabilityTable().for_model(model).cache_min_tokens
    mode = replace(DEFAULT_MODES["task"], model=model, cache_ttl=ttl, window_refill=refill)
    with (
        tempfile.TemporaryDirectory(prefix="shitsuji-cache-") as tmp,
        CachingMessagesAPI(min_tokens=minimum).running() as api,
    ):
        folds: list[bool] = []
        per_turn = _converse(Path(tmp) / "cache.db", api, mode_table={"task": mode}, turns=turns, folds=folds)
        side = [b for b in api.billed if b.kind != "turn"]
    shares = [b.cache_read / max(b.input_tokens + b.cache_read + b.cache_write, 1) for b in per_turn]
    costs = [_cost(model, b, ttl) for b in per_turn]
    later = shares[2:]
    rest = _sum(per_turn[2:])
    return {
        "model": model,
        "ttl": ttl,
        "turns": turns,
        "window_refill": refill,
        "cache_min_tokens": minimum,
        "input_tokens_per_turn_median": statistics.median(
            b.input_tokens + b.cache_read + b.cache_write for b in per_turn
        ),
        "cache_read_share_turn1": round(shares[0], 3),
        "cache_read_share_turn3_on_median": round(statistics.median(later), 3),
        "cache_read_share_turn3_on_min": round(min(later), 3),
        "cache_read_share_turn3_on_overall": round(
            rest.cache_read / max(rest.input_tokens + rest.cache_read + rest.cache_write, 1), 3
        ),
        "turns_with_a_fold": sum(folds),  # the window moved: the conversation before it is new bytes
        "cost_per_turn_median_usd": round(statistics.median(costs), 5),
        "cost_per_turn_uncached_median_usd": round(
            statistics.median(_uncached_cost(model, b) for b in per_turn), 5
        ),
        "cost_total_usd": round(sum(costs), 4),
        "router_and_summary_cost_usd": round(sum(_cost(CHEAP_MODEL, b, "5m") for b in side), 4),  # Haiku
        "per_turn_share": [round(s, 3) for s in shares],
        "per_turn_fold": folds,
    }


async def _turn(butler: Butler, ctx: Any, text: str, conversation: str) -> Billed:
    """One turn through the service; its usage as the service reports it (``Finished.usage``)."""
    turn = butler.service.begin(ctx, text, conversation=conversation, segment=KEEP)
    events = [e async for e in butler.service.events(turn)]
    done = next((e for e in events if isinstance(e, Finished)), None)
    if done is None:
        raise RuntimeError(f"a turn did not finish: {events[-1:]}")
    u = done.usage
    return Billed(
        "turn", u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens
    )


def _converse(
    db: Path, api: CachingMessagesAPI, *, mode_table: dict[str, Any], turns: int, folds: list[bool]
) -> list[Billed]:
    store = HouseholdStore(database(db))
    store.create("futari", ["wife", "husband"])
    store.close()
    memory = MemoryEngine(open_store(db), HashEmbedder())
    model = AnthropicModel(api_key="bench", base_url=api.url, max_retries=0)
    butler = Butler(database(db), memory, model, modes=mode_table, extraction=ExtractionSettings())
    ctx = butler.member("wife", "app", household="futari")
    conversation = butler.conversations.start("futari", "wife", "app").id
    per_turn: list[Billed] = []
    try:
        for i in range(turns):
            before = len(api.billed)

            reported = asyncio.run(_turn(butler, ctx, SAID[i % len(SAID)], conversation))
            billed = api.billed[before:]
            if reported != _sum([b for b in billed if b.kind == "turn"]):  # what the API said, seen whole
                raise RuntimeError(f"turn {i + 1}: the service reported {reported}, the API billed {billed}")
            per_turn.append(reported)
            folds.append(any(b.kind == "fold" for b in billed))
    finally:
        butler.close()
        memory.store.close()
    return per_turn
