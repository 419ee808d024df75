"""Money as a couple manages it, on both engines: who paid, the split ratio, the month's settlement,
the last months' totals; the settlement from the tool; split and payer changes are cards everywhere."""

from __future__ import annotations

import json

import pytest

from shitsuji.agent import DEFAULT_POLICIES
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import MONEY_TOOLS, HouseholdStore, MoneyStore, panel_view, parse_ratio, shares
from shitsuji.memory import MemoryEngine

from . import test_household
from .test_anniversaries import ctx
from .test_anniversaries import said as run

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice)


@pytest.fixture
def money(store: HouseholdStore) -> MoneyStore:
    return MoneyStore(store.database, clock=store.clock)


def test_ratios_and_shares_in_whole_yen() -> None:
    assert parse_ratio("6:4", 2) == (6, 4) and parse_ratio("１：１".replace("１", "1"), 2) == (1, 1)
    assert shares(1001, (6, 4)) == [600, 401] and sum(shares(999, (1, 1, 1))) == 999
    for bad in ("6-4", "0:0", "6:4:1", "半分"):
        with pytest.raises(UserInputError):
            parse_ratio(bad, 2)


def test_the_months_settlement_under_a_split(store: HouseholdStore, money: MoneyStore) -> None:
    store.add_expense("futari", 10_000, "食費", day="2026-01-03", by="wife")
    rent = store.add_expense("futari", 80_000, "家賃", day="2026-01-01", by="wife")
    store.add_expense("futari", 5_000, "日用品", day="2026-01-10", by="husband")
    store.add_expense("futari", 9_999, "食費", day="2025-12-30", by="husband")  # last month
    even = money.settlement("futari", "2026-01").to_json()
    assert even["paid"] == {"wife": 90_000, "husband": 5_000} and even["share"] == {
        "wife": 47_500,
        "husband": 47_500,
    }
    assert (even["paid_more"], even["by_yen"]) == ("wife", 42_500)
    money.set_split("futari", "6:4")
    money.set_payer("futari", rent.id, "husband")
    now = money.settlement("futari", "2026-01").to_json()
    assert now["split"] == "6:4" and now["share"] == {"wife": 57_000, "husband": 38_000}
    assert now["balance"] == {"wife": -47_000, "husband": 47_000} and now["paid_more"] == "husband"
    with pytest.raises(UserInputError, match="not a member"):
        money.set_payer("futari", rent.id, "alice")
    with pytest.raises(NotFoundError):
        money.set_payer("tonari", rent.id, "alice")
    assert money.trend("futari", "2026-01", 3) == [("2025-11", 0), ("2025-12", 9_999), ("2026-01", 95_000)]


def test_the_budget_panel_carries_the_settlement_and_trend(store: HouseholdStore) -> None:
    store.add_expense("futari", 3_000, "外食", day="2026-01-02", by="husband")
    view = panel_view(store, "futari", "budget", "2026-01", viewer="wife")
    assert view["settlement"]["paid_more"] == "husband" and len(view["trend"]) == 6
    assert view["trend"][-1] == {"month": "2026-01", "total_yen": 3_000}


def test_the_tool_answers_from_data_and_changes_are_cards(
    store: HouseholdStore, engine: MemoryEngine
) -> None:
    store.add_expense("futari", 4_000, "食費", day="2026-01-02", by="wife")
    answer = json.loads(run(ctx(store, engine, "husband"), "settlement"))
    assert answer["month"] == "2026-01" and answer["by_yen"] == 2_000 and answer["paid_more"] == "wife"
    writes = [t.name for t in MONEY_TOOLS if t.effect == "write"]
    assert writes == ["set_split", "set_expense_payer"]
    for channel, policy in DEFAULT_POLICIES.items():
        assert not any(policy.may_auto_run(name, tainted=False) for name in writes), channel
