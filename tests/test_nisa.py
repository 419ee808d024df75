"""NISA under the 2024 rules, on both engines: the yearly and lifetime room from the data, purchases
past a limit refused with nothing stored, each member's account private unless shared, and every money
write a card on every channel."""

from __future__ import annotations

import json

import pytest

from shitsuji.agent import DEFAULT_POLICIES
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import NISA_TOOLS, HouseholdStore, NisaStore, butler_toolbox
from shitsuji.memory import MemoryEngine

from . import test_household
from .test_anniversaries import ctx
from .test_anniversaries import said as run

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice)
BOX = butler_toolbox()


@pytest.fixture
def nisa(store: HouseholdStore) -> NisaStore:
    return NisaStore(store.database, clock=store.clock)


def test_the_years_room_in_each_frame_and_for_life(nisa: NisaStore) -> None:
    nisa.contribute("futari", "tsumitate", "eMAXIS Slim 全世界株式", 100_000, "2026-01-05", by="wife")
    nisa.contribute("futari", "growth", "トヨタ自動車", 500_000, "2026-02-01", by="wife")
    nisa.contribute("futari", "growth", "S&P500", 2_400_000, "2025-03-01", by="wife")  # last year
    nisa.contribute("futari", "tsumitate", "全世界株式", 1_200_000, "2026-01-05", by="husband")
    room = nisa.allowance("futari", "wife", 2026)
    assert room.left == {
        "tsumitate": 1_100_000,
        "growth": 1_900_000,
        "lifetime": 15_000_000,
        "growth_lifetime": 9_100_000,
    }
    assert room.to_json()["used_this_year"] == {"tsumitate": 100_000, "growth": 500_000}
    assert nisa.allowance("futari", "husband", 2026).left["tsumitate"] == 0
    assert nisa.allowance("futari", "wife", 2027).left["growth"] == 2_400_000


def test_a_purchase_past_a_limit_is_refused_and_nothing_is_stored(nisa: NisaStore) -> None:
    nisa.contribute("futari", "tsumitate", "全世界株式", 1_000_000, "2026-01-05", by="wife")
    with pytest.raises(UserInputError, match=r"tsumitate frame for 2026 \(¥200,000.*nothing was recorded"):
        nisa.contribute("futari", "tsumitate", "全世界株式", 300_000, "2026-06-05", by="wife")
    for year in range(2027, 2032):  # five years of the growth frame: 12M for life
        nisa.contribute("futari", "growth", "個別株", 2_400_000, f"{year}-01-10", by="wife")
    assert nisa.allowance("futari", "wife", 2032).left["growth"] == 0  # growth's lifetime 12M is used
    with pytest.raises(UserInputError, match="growth"):
        nisa.contribute("futari", "growth", "個別株", 1, "2032-01-10", by="wife")
    assert nisa.allowance("futari", "wife", 2032).left["tsumitate"] == 1_200_000
    with pytest.raises(UserInputError, match="frame"):
        nisa.contribute("futari", "bonds", "x", 1, "2026-01-01", by="wife")
    assert len(nisa.contributions("futari", "wife")) == 6


def test_each_account_is_private_unless_shared(nisa: NisaStore) -> None:
    mine = nisa.contribute("futari", "tsumitate", "全世界株式", 50_000, "2026-01-05", by="wife")
    nisa.contribute("futari", "tsumitate", "S&P500", 30_000, "2026-01-05", by="wife", shared=True)
    nisa.set_holding("futari", "tsumitate", "全世界株式", 52_000, "2026-01-31", by="wife")
    assert [c.fund for c in nisa.contributions("futari", "husband")] == ["S&P500"]
    assert nisa.holdings("futari", "husband") == [] and len(nisa.holdings("futari", "wife")) == 1
    assert nisa.contributions("tonari", "alice") == []
    with pytest.raises(NotFoundError):
        nisa.remove_contribution("futari", mine.id, "husband")
    latest = nisa.set_holding("futari", "tsumitate", "全世界株式", 55_000, "2026-02-28", by="wife")
    assert nisa.holdings("futari", "wife") == [latest]  # the latest value replaces the earlier one
    assert nisa.remove_contribution("futari", mine.id, "wife").amount_yen == 50_000


def test_tools_answer_from_data_for_the_speaker_only(store: HouseholdStore, engine: MemoryEngine) -> None:
    wife, husband = ctx(store, engine, "wife"), ctx(store, engine, "husband")
    tool = BOX.get("add_nisa_contribution")
    assert tool is not None and "owner" not in json.dumps(tool.definition())  # always the speaker's account
    args = tool.validate({"frame": "growth", "fund": "トヨタ自動車", "amount": 300000, "date": "2026-01-01"})
    assert tool.summary(args) == "1/1 NISA 成長投資枠で トヨタ自動車 を ¥300,000 購入として記録"
    run(wife, "add_nisa_contribution", **args)
    room = json.loads(run(wife, "nisa_allowance"))
    assert room["year"] == 2026 and room["left_this_year"] == {"tsumitate": 1_200_000, "growth": 2_100_000}
    assert json.loads(run(husband, "nisa_allowance"))["left_this_year"]["growth"] == 2_400_000
    assert json.loads(run(husband, "list_nisa"))["contributions"] == []


def test_every_money_write_is_a_card_on_every_channel() -> None:
    writes = [t.name for t in NISA_TOOLS if t.effect == "write"]
    assert writes == ["add_nisa_contribution", "set_nisa_holding", "remove_nisa_contribution"]
    for channel, policy in DEFAULT_POLICIES.items():
        assert not any(policy.may_auto_run(name, tainted=False) for name in writes), channel


def _waiting_on_locks(target: str) -> int:
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return int(row[0]) if row else 0


def test_two_purchases_at_once_never_pass_a_limit_together(target: str, nisa: NisaStore) -> None:
    """Two 700,000 yen purchases into a 1,200,000 frame at the same moment: one is refused. On PostgreSQL
    a third session holds back every insert until both purchases have read the room (so without the
    member's row taken ``FOR UPDATE`` both would pass); SQLite's writes take turns."""
    import threading
    import time

    outcomes: list[str] = []
    start = threading.Barrier(3, timeout=120)

    def buy(fund: str) -> None:
        start.wait()
        try:
            nisa.contribute("futari", "tsumitate", fund, 700_000, "2026-03-01", by="wife")
            outcomes.append("ok")
        except UserInputError:
            outcomes.append("refused")

    threads = [threading.Thread(target=buy, args=(f,)) for f in ("全世界株式", "S&P500")]
    for t in threads:
        t.start()
    if target.startswith("postgresql"):
        import psycopg

        with psycopg.connect(target) as holder:
            holder.execute("LOCK TABLE nisa_contributions IN SHARE MODE")  # reads pass, inserts wait
            start.wait()
            deadline = time.monotonic() + 120
            while _waiting_on_locks(target) < 2:  # both purchases are inside, waiting
                assert time.monotonic() < deadline, "the purchases never reached the lock"
                time.sleep(0.05)
            holder.commit()
    else:
        start.wait()
    for t in threads:
        t.join(timeout=120)
    assert sorted(outcomes) == ["ok", "refused"]
    assert nisa.allowance("futari", "wife", 2026).used["tsumitate"] == 700_000
