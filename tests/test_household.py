"""The household butler: its tables, its twelve tools, the count index and its CLI, on real SQLite."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import shitsuji.cli._household  # noqa: F401  (registers `shitsuji household …` for the cli fixture)
from shitsuji.agent import Tool, ToolContext, ToolInputError
from shitsuji.context import Segments
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import (
    AnniversaryStore,
    HouseholdDeps,
    HouseholdStore,
    count_index,
    estimate_tokens,
    household_toolbox,
    prompt_tokens_benchmark,
)
from shitsuji.household._schema import HOUSEHOLD_SCHEMA
from shitsuji.memory import MemoryEngine
from shitsuji.store import database, open_database

from .conftest import Cli, Clock

BOX = household_toolbox()
TODAY = date(2026, 1, 1)  # the conftest clock's day


@pytest.fixture
def store(target: str, clock: Clock) -> Iterator[HouseholdStore]:
    households = HouseholdStore(database(target), clock=clock)
    households.create("futari", ["wife", "husband"])
    households.create("tonari", ["alice"])
    yield households
    households.close()


def member(store: HouseholdStore, engine: MemoryEngine, user: str, channel: str, **where: Any) -> ToolContext:
    return HouseholdDeps(store, engine, Segments(database(store.path))).member(user, channel, **where)


@pytest.fixture
def wife(store: HouseholdStore, engine: MemoryEngine) -> ToolContext:
    return member(store, engine, "wife", "app")


@pytest.fixture
def alice(store: HouseholdStore, engine: MemoryEngine) -> ToolContext:
    return member(store, engine, "alice", "app")


def tool_(name: str) -> Tool:
    found = BOX.get(name)
    assert found is not None, name
    return found


def call(ctx: ToolContext[None], tool_name: str, /, **arguments: Any) -> Any:
    """Run a tool as the loop would: through ``Tool.run`` with wire-named arguments."""
    return asyncio.run(tool_(tool_name).run(ctx, arguments)).content


def listed(ctx: ToolContext[None], tool_name: str, /, **arguments: Any) -> Any:
    return json.loads(call(ctx, tool_name, **arguments))


# -- the contract ------------------------------------------------------------


def test_tool_names_effects_and_wire_fields_are_the_public_contract() -> None:
    definitions = {d["name"]: d["input_schema"] for d in BOX.definitions()}
    fields = {name: set(schema.get("properties", {})) for name, schema in definitions.items()}
    assert fields == {
        "list_shopping_items": set(),
        "list_events": {"from", "to"},
        "list_todos": set(),
        "list_expenses": {"month"},
        "search_memory": {"query"},
        "add_shopping_item": {"name", "quantity"},
        "add_event": {"title", "start", "end", "note", "private"},
        "add_todo": {"title", "due", "private"},
        "add_expense": {"amount", "category", "note", "date"},
        "complete_todo": {"id"},
        "remove_shopping_item": {"id"},
        "remember": {"content", "category", "keys"},
    }
    required = {name: sorted(schema.get("required", [])) for name, schema in definitions.items()}
    assert required["add_event"] == ["start", "title"]
    assert required["add_expense"] == ["amount", "category"]
    assert required["remember"] == ["category", "content"]
    assert required["list_events"] == [] and required["list_expenses"] == []
    reads = {t.name for t in BOX if t.effect == "read"}
    assert reads == {"list_shopping_items", "list_events", "list_todos", "list_expenses", "search_memory"}
    assert all(t.description for t in BOX)


# -- lists -------------------------------------------------------------------


def test_shopping_list_add_list_remove(wife: ToolContext) -> None:
    assert "牛乳 ×2" in call(wife, "add_shopping_item", name=" 牛乳 ", quantity=2)
    call(wife, "add_shopping_item", name="卵")
    items = listed(wife, "list_shopping_items")
    assert [(i["name"], i["quantity"], i["added_by"]) for i in items] == [
        ("牛乳", 2, "wife"),
        ("卵", 1, "wife"),
    ]
    assert items[0]["id"].startswith("s_")
    assert call(wife, "remove_shopping_item", id=items[0]["id"]) == "removed from the shopping list: 牛乳"
    assert [i["name"] for i in listed(wife, "list_shopping_items")] == ["卵"]
    with pytest.raises(NotFoundError, match="no shopping item"):
        call(wife, "remove_shopping_item", id=items[0]["id"])


def test_events_from_today_by_default_and_within_inclusive_days(wife: ToolContext) -> None:
    call(wife, "add_event", title="去年の忘年会", start="2025-12-28T19:00")
    call(wife, "add_event", title="初詣", start="2026-01-01")
    call(wife, "add_event", title="歯医者", start="2026-01-03T10:00", end="2026-01-03T11:00", note="保険証")
    call(wife, "add_event", title="帰省", start="2026-01-10", end="2026-01-12")
    titles = [e["title"] for e in listed(wife, "list_events")]
    assert titles == ["初詣", "歯医者", "帰省"]  # past events are left out unless asked for
    assert [
        e["title"] for e in listed(wife, "list_events", **{"from": "2026-01-03", "to": "2026-01-03"})
    ] == ["歯医者"]
    assert [e["title"] for e in listed(wife, "list_events", **{"from": "2026-01-11"})] == ["帰省"]  # still on
    assert [
        e["title"] for e in listed(wife, "list_events", **{"from": "2025-12-01", "to": "2025-12-31"})
    ] == ["去年の忘年会"]
    dentist = listed(wife, "list_events", **{"from": "2026-01-03", "to": "2026-01-03"})[0]
    assert dentist["start"] == "2026-01-03T10:00" and dentist["note"] == "保険証"


def test_todos_complete_once_and_leave_the_open_list(wife: ToolContext) -> None:
    call(wife, "add_todo", title="年賀状を書く", due="2026-01-05")
    call(wife, "add_todo", title="ガス代を払う")
    call(wife, "add_todo", title="網戸を掃除", due="2026-01-02")
    todos = listed(wife, "list_todos")
    assert [t["title"] for t in todos] == ["網戸を掃除", "年賀状を書く", "ガス代を払う"]  # soonest due first
    assert call(wife, "complete_todo", id=todos[0]["id"]) == "done: 網戸を掃除"
    assert call(wife, "complete_todo", id=todos[0]["id"]) == "網戸を掃除 was already done"
    assert [t["title"] for t in listed(wife, "list_todos")] == ["年賀状を書く", "ガス代を払う"]


def test_expenses_by_month_with_count_and_total(wife: ToolContext) -> None:
    call(wife, "add_expense", amount=1200, category="食費", note="スーパー")
    call(wife, "add_expense", amount=980, category="日用品", date="2026-01-20")
    call(wife, "add_expense", amount=5000, category="外食", date="2025-12-31")
    january = listed(wife, "list_expenses")
    assert (january["month"], january["count"], january["total_yen"]) == ("2026-01", 2, 2180)
    assert january["expenses"][0] == {**january["expenses"][0], "date": "2026-01-01", "amount_yen": 1200}
    december = listed(wife, "list_expenses", month="2025-12")
    assert (december["count"], december["total_yen"]) == (1, 5000)


def test_one_household_never_sees_or_changes_anothers_rows(wife: ToolContext, alice: ToolContext) -> None:
    call(wife, "add_shopping_item", name="牛乳")
    call(wife, "add_event", title="歯医者", start="2026-01-03T10:00")
    call(wife, "add_todo", title="年賀状を書く")
    call(wife, "add_expense", amount=1200, category="食費")
    assert listed(alice, "list_shopping_items") == []
    assert listed(alice, "list_events") == []
    assert listed(alice, "list_todos") == []
    assert listed(alice, "list_expenses")["count"] == 0
    todo_id = listed(wife, "list_todos")[0]["id"]
    item_id = listed(wife, "list_shopping_items")[0]["id"]
    with pytest.raises(NotFoundError, match=f"no to-do with id '{todo_id}' in this household"):
        call(alice, "complete_todo", id=todo_id)
    with pytest.raises(NotFoundError, match="no shopping item"):
        call(alice, "remove_shopping_item", id=item_id)
    assert [t["id"] for t in listed(wife, "list_todos")] == [todo_id]  # untouched
    assert [i["id"] for i in listed(wife, "list_shopping_items")] == [item_id]


def test_husband_shares_the_households_lists(
    store: HouseholdStore, wife: ToolContext, engine: MemoryEngine
) -> None:
    husband = member(store, engine, "husband", "line")
    call(wife, "add_shopping_item", name="牛乳")
    assert [i["name"] for i in listed(husband, "list_shopping_items")] == ["牛乳"]


# -- validation --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "needle"),
    [
        ("add_expense", {"amount": 0, "category": "食費"}, "amount: Input should be greater than 0"),
        ("add_expense", {"amount": -300, "category": "食費"}, "amount: Input should be greater than 0"),
        ("add_expense", {"amount": 12.5, "category": "食費"}, "amount: Input should be a valid integer"),
        ("add_expense", {"amount": "1200", "category": "食費"}, "amount: Input should be a valid integer"),
        ("add_expense", {"amount": True, "category": "食費"}, "amount: Input should be a valid integer"),
        ("add_expense", {"amount": 1200, "category": ""}, "category: String should have at least 1"),
        ("add_expense", {"amount": 1200, "category": "食費", "date": "2026-02-30"}, "not an ISO 8601 date"),
        ("add_event", {"title": "歯医者", "start": "来週の火曜"}, "not an ISO 8601 date or time"),
        ("add_event", {"title": "歯医者", "start": "2026-12-03T10:00+09:00"}, "has a time-zone offset"),
        ("add_event", {"title": "x" * 101, "start": "2026-12-03"}, "title: String should have at most 100"),
        ("add_todo", {"title": "年賀状", "due": "12/5"}, "due: Value error"),
        ("list_events", {"from": "yesterday"}, "from: Value error"),
        ("list_expenses", {"month": "2026-13"}, "use YYYY-MM"),
        ("list_expenses", {"month": "2026-1"}, "use YYYY-MM"),
        (
            "add_shopping_item",
            {"name": "卵", "quantity": 100},
            "quantity: Input should be less than or equal",
        ),
        ("add_shopping_item", {"name": "  "}, "name: String should have at least 1"),
        ("add_shopping_item", {"name": "卵", "user": "husband"}, "user: Extra inputs are not permitted"),
        ("remember", {"content": "猫が好き", "category": "gossip"}, "category: Input should be"),
        (
            "remember",
            {"content": "猫が好き", "category": "misc", "keys": "cat"},
            "keys: Input should be a valid list",
        ),
        (
            "remember",
            {"content": "猫が好き", "category": "misc", "keys": [1]},
            "keys.0: Input should be a valid string",
        ),
        (
            "remember",
            {"content": "猫が好き", "category": "misc", "keys": ["k"] * 13},
            "keys: List should have at most 12 items",
        ),
        (
            "remember",
            {"content": "猫が好き", "category": "misc", "keys": ["x" * 41]},
            "keys.0: String should have at most 40 characters",
        ),
        ("search_memory", {"query": ""}, "query: String should have at least 1"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(
    name: str, arguments: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ToolInputError, match=needle.replace("(", r"\(")):
        tool_(name).validate(arguments)


def test_times_are_stored_in_one_canonical_form(wife: ToolContext) -> None:
    checked = tool_("add_event").validate({"title": "歯医者", "start": "2026-12-03 10:00:00"})
    assert checked["start"] == "2026-12-03T10:00"
    with pytest.raises(UserInputError, match="end 2026-12-03T09:00 is before start"):
        call(wife, "add_event", title="歯医者", start="2026-12-03T10:00", end="2026-12-03T09:00")


# -- confirmation cards ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "card"),
    [
        ("add_event", {"title": "歯医者", "start": "2026-12-03T10:00"}, "12/3 10:00 歯医者 を予定に追加"),
        (
            "add_event",
            {"title": "歯医者", "start": "2026-12-03T10:00", "end": "2026-12-03T11:30"},
            "12/3 10:00–11:30 歯医者 を予定に追加",
        ),
        (
            "add_event",
            {"title": "帰省", "start": "2026-12-29", "end": "2027-01-03"},
            "12/29–1/3 帰省 を予定に追加",
        ),
        ("add_shopping_item", {"name": "牛乳"}, "牛乳 を買い物リストに追加"),
        ("add_shopping_item", {"name": "卵", "quantity": 2}, "卵 ×2 を買い物リストに追加"),
        ("add_expense", {"amount": 1200, "category": "食費"}, "¥1,200 食費 を支出に記録"),
        (
            "add_expense",
            {"amount": 34500, "category": "外食", "note": "忘年会", "date": "2026-12-20"},
            "12/20 ¥34,500 外食（忘年会）を支出に記録",
        ),
        ("add_todo", {"title": "年賀状を書く"}, "年賀状を書く をToDoに追加"),
        (
            "add_todo",
            {"title": "年賀状を書く", "due": "2026-12-25"},
            "年賀状を書く（期限 12/25）をToDoに追加",
        ),
        ("complete_todo", {"id": "t_1a2b3c4d"}, "ToDo t_1a2b3c4d を完了にする"),
        ("remove_shopping_item", {"id": "s_1a2b3c4d"}, "買い物リストから s_1a2b3c4d を削除"),
        (
            "remember",
            {"content": "猫アレルギーがある", "category": "profile"},
            "「猫アレルギーがある」を覚える",
        ),
    ],
)
def test_write_tools_say_in_japanese_what_approving_does(
    name: str, arguments: dict[str, Any], card: str
) -> None:
    found = tool_(name)
    assert found.effect == "write"
    assert found.summary(found.validate(arguments)) == card


# -- memory tools ------------------------------------------------------------


def test_remember_and_search_memory_use_the_speakers_scope(
    store: HouseholdStore, wife: ToolContext, engine: MemoryEngine
) -> None:
    assert call(wife, "remember", content="紅茶はミルクティーが好き", category="preference") == "remembered"
    assert call(wife, "remember", content="紅茶はミルクティーが好き", category="preference").startswith(
        "already remembered"
    )
    engine.remember("紅茶の茶葉は戸棚の上の段にある", "household/futari", category="misc")
    keys = ["coriander", "香草"]  # the model's search keys: stored, marked as the model's, found by
    assert call(wife, "remember", content="パクチーは苦手", category="preference", keys=keys) == "remembered"
    assert "パクチー" in call(wife, "search_memory", query="coriander")
    keyed = [m for m in engine.list_memories("household/futari/user/wife") if m.keys]
    assert [(m.keys, m.keys_by) for m in keyed] == [(("coriander", "香草"), "model")]
    engine.forget(keyed[0].id)
    stored = list(engine.list_memories("household/futari/user/wife"))
    assert [(m.scope, m.provenance["by"]) for m in stored] == [("household/futari/user/wife", "wife")]
    found = call(wife, "search_memory", query="紅茶")
    assert "ミルクティー" in found and "(preference, theirs)" in found
    assert "戸棚" in found and "(misc, shared)" in found
    husband = member(store, engine, "husband", "app")
    theirs = call(husband, "search_memory", query="紅茶")
    assert "戸棚" in theirs and "ミルクティー" not in theirs  # a sibling's memories stay private
    alice = member(store, engine, "alice", "app")
    assert call(alice, "search_memory", query="紅茶") == "nothing remembered about that"  # another household


# -- membership --------------------------------------------------------------


def test_member_context_fills_scope_household_and_deps(store: HouseholdStore, engine: MemoryEngine) -> None:
    ctx = member(store, engine, "wife", "line", conversation="c1")
    assert (ctx.user, ctx.scope, ctx.channel, ctx.household, ctx.conversation) == (
        "wife",
        "household/futari/user/wife",
        "line",
        "futari",
        "c1",
    )
    assert ctx.deps.store is store and ctx.deps.memory is engine


def test_member_context_refuses_anyone_outside_the_household(
    store: HouseholdStore, engine: MemoryEngine
) -> None:
    with pytest.raises(
        UserInputError, match=r"'alice' is not a member of household 'futari' \(members: wife, husband\)"
    ):
        member(store, engine, "alice", "app", household="futari")
    with pytest.raises(
        NotFoundError, match=r"'mallory' is not a member of any household .*futari \(wife, husband\)"
    ):
        member(store, engine, "mallory", "app")
    with pytest.raises(NotFoundError, match="no household named 'sanbiki'"):
        member(store, engine, "wife", "app", household="sanbiki")
    store.create("jikka", ["wife", "mother"])
    with pytest.raises(UserInputError, match=r"belongs to several households \(futari, jikka\)"):
        member(store, engine, "wife", "app")
    assert member(store, engine, "wife", "app", household="jikka").scope == "household/jikka/user/wife"


def test_tools_refuse_a_context_without_a_household(store: HouseholdStore, engine: MemoryEngine) -> None:
    deps = HouseholdDeps(store, engine, Segments(database(store.path)))
    bare = ToolContext(deps=deps, user="wife", scope="household/futari/user/wife", channel="app")
    with pytest.raises(LookupError, match=r"HouseholdDeps\.member"):
        call(bare, "list_todos")


def test_creating_households_is_checked(store: HouseholdStore) -> None:
    with pytest.raises(UserInputError, match=r"household 'futari' already exists \(members: wife, husband\)"):
        store.create("futari", ["someone"])
    with pytest.raises(UserInputError, match="needs at least one member"):
        store.create("empty", [])
    with pytest.raises(UserInputError, match="household name 'two words' is not valid"):
        store.create("two words", ["a"])
    with pytest.raises(UserInputError, match="member 'a/b' is not valid"):
        store.create("slash", ["a/b"])
    assert store.create("dupes", ["a", "a", "b"]).members == ("a", "b")
    with pytest.raises(NotFoundError, match="no household named 'ghost'"):
        store.add_todo("ghost", "x", by="a")


# -- count index -------------------------------------------------------------


def test_count_index_counts_only_what_is_current_and_this_households(
    store: HouseholdStore, wife: ToolContext, alice: ToolContext
) -> None:
    assert count_index(store, "futari", TODAY) == "予定 0件・ToDo 0件・買い物 0件・今月の支出 0件（¥0）"
    call(wife, "add_event", title="去年の忘年会", start="2025-12-28T19:00")  # over
    call(wife, "add_event", title="初詣", start="2026-01-01")
    call(wife, "add_event", title="歯医者", start="2026-01-03T10:00")
    call(wife, "add_todo", title="年賀状を書く")
    done = call(wife, "add_todo", title="網戸を掃除").rsplit("id ", 1)[1].rstrip(")")
    call(wife, "complete_todo", id=done)
    call(wife, "add_shopping_item", name="牛乳", quantity=3)
    call(wife, "add_expense", amount=1200, category="食費")
    call(wife, "add_expense", amount=800, category="日用品", date="2026-01-31")
    call(wife, "add_expense", amount=5000, category="外食", date="2025-12-31")  # last month
    call(alice, "add_shopping_item", name="卵")
    assert count_index(store, "futari", TODAY) == "予定 2件・ToDo 1件・買い物 1件・今月の支出 2件（¥2,000）"
    assert count_index(store, "futari", TODAY, lang="en") == (
        "upcoming events 2 · open to-dos 1 · shopping items 1 · expenses this month 2 (¥2,000)"
    )
    assert count_index(store, "futari", date(2026, 1, 4)).startswith("予定 0件")
    assert count_index(store, "tonari", TODAY) == "予定 0件・ToDo 0件・買い物 1件・今月の支出 0件（¥0）"


def test_count_index_is_a_small_fraction_of_the_full_data_prompt() -> None:
    report = prompt_tokens_benchmark(200)
    assert report["items"] == 200 and report["meets_target"] is True
    assert report["ratio_tokens"] <= 0.15
    assert report["count_index"]["text"] == "予定 50件・ToDo 50件・買い物 50件・今月の支出 50件（¥182,825）"
    assert report["full_data"]["tokens"] > 20 * report["count_index"]["tokens"]


def test_token_estimate_counts_cjk_one_by_one_and_latin_by_four() -> None:
    assert estimate_tokens("牛乳を買う") == 5
    assert estimate_tokens("milk and eggs") == 4
    assert estimate_tokens("") == 0


# -- schema ------------------------------------------------------------------


def test_migration_adds_the_household_tables(target: str, store: HouseholdStore) -> None:
    assert "0003_household" in HOUSEHOLD_SCHEMA.names()
    db = open_database(target)
    for table in ("households", "household_members", "shopping_items", "events", "todos", "expenses"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= 0
    assert db.execute("SELECT count(*) FROM anniversaries").fetchone() == (0,)


def test_dump_holds_every_row_of_the_household(store: HouseholdStore) -> None:
    found = AnniversaryStore(store.database)
    found.add("futari", "結婚記念日", "2020-06-01", by="wife")
    found.add("futari", "初デート", "2019-02-14", by="husband", private=True)
    dump = store.dump("futari")
    assert dump["household"]["members"] == ["wife", "husband"] and len(dump["anniversaries"]) == 2


# -- CLI ---------------------------------------------------------------------


def test_cli_init_and_list_commands(cli: Cli, db_path: Path) -> None:
    created = cli(
        "household", "init", "--name", "futari", "--member", "wife", "--member", "husband", "--json"
    )
    assert created.code == 0 and created.json()["members"] == ["wife", "husband"]
    again = cli("household", "init", "--name", "futari", "--member", "wife")
    assert again.code == 1 and "already exists" in again.err and "pick another --name" in again.err
    households = HouseholdStore(database(db_path))
    households.add_shopping_item("futari", "牛乳", by="wife")
    households.add_event("futari", "同窓会", "2099-05-01T18:00", by="husband")
    households.add_todo("futari", "年賀状を書く", "2099-12-25", by="wife")
    households.add_expense("futari", 1200, "食費", day="2026-03-05", by="wife")
    households.close()
    assert [i["name"] for i in cli("household", "shopping", "--json").json()] == ["牛乳"]
    assert [e["title"] for e in cli("household", "events", "--json").json()] == ["同窓会"]
    assert [t["title"] for t in cli("household", "todos", "--name", "futari", "--json").json()] == [
        "年賀状を書く"
    ]
    assert [x["amount_yen"] for x in cli("household", "expenses", "--month", "2026-03", "--json").json()] == [
        1200
    ]
    text = cli("household", "expenses", "--month", "2026-03")
    assert text.code == 0 and "total ¥1,200 (1 expenses)" in text.out
    assert "牛乳" in cli("household", "shopping").out


def test_cli_sets_the_households_time_zone(cli: Cli, db_path: Path) -> None:
    made = cli(
        "household", "init", "--name", "futari", "--member", "wife", "--time-zone", "Asia/Tokyo", "--json"
    )
    assert made.code == 0 and made.json()["time_zone"] == "Asia/Tokyo"
    bad = cli("household", "time-zone", "Tokyo/Shinjuku")
    assert bad.code == 1 and "Asia/Tokyo" in bad.err  # says what a zone looks like
    moved = cli("household", "time-zone", "Europe/London")
    assert moved.code == 0 and "now lives in Europe/London" in moved.out
    store = HouseholdStore(database(db_path))
    try:
        assert store.get("futari").time_zone == "Europe/London"
    finally:
        store.close()


def test_cli_says_which_household_to_choose(cli: Cli) -> None:
    none = cli("household", "shopping", "--json")
    assert none.code == 1 and "shitsuji household init --name NAME --member YOUR_ID" in none.err
    cli("household", "init", "--name", "futari", "--member", "wife")
    cli("household", "init", "--name", "tonari", "--member", "alice")
    several = cli("household", "todos")
    assert several.code == 1 and "several households (futari, tonari): choose one with --name" in several.err
    unknown = cli("household", "events", "--name", "sanbiki")
    assert unknown.code == 1 and "no household named 'sanbiki'" in unknown.err
    bad_month = cli("household", "expenses", "--name", "futari", "--month", "March")
    assert bad_month.code == 1 and "use YYYY-MM" in bad_month.err
