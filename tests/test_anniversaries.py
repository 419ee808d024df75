"""Anniversaries: the yearly rule, who sees what, the tools, the panel action, the count index and the CLI.

The store runs on both engines (``target``); the clock is the conftest's (2026-01-01 12:00 UTC).
"""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import shitsuji.cli._anniversary  # noqa: F401  (registers `shitsuji household anniversary …`)
from shitsuji.agent import ToolContext
from shitsuji.context import Segments
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import (
    ACTIONS,
    AnniversaryList,
    AnniversaryStore,
    HouseholdDeps,
    HouseholdStore,
    apply,
    butler_toolbox,
    count_index,
    days_until,
    next_occurrence,
    panel_view,
)
from shitsuji.line._render import effect_messages
from shitsuji.memory import MemoryEngine

from . import test_household
from .conftest import Cli

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice)

TODAY = date(2026, 1, 1)
BOX = butler_toolbox()


@pytest.fixture
def dates(store: HouseholdStore) -> AnniversaryStore:
    return AnniversaryStore(store.database, clock=store.clock)


def ctx(store: HouseholdStore, engine: MemoryEngine, user: str) -> ToolContext[HouseholdDeps]:
    return HouseholdDeps(store, engine, Segments(store.database)).member(user, "app")


def run(context: ToolContext[Any], name: str, **arguments: Any) -> Any:
    """Run a butler tool as the loop would (through ``Tool.run``); its ``ToolOutput``."""
    found = BOX.get(name)
    assert found is not None, name
    return asyncio.run(found.run(context, arguments))


def said(context: ToolContext[Any], name: str, **arguments: Any) -> str:
    """What a butler tool answers the model."""
    return str(run(context, name, **arguments).content)


# -- the yearly rule ----------------------------------------------------------


@pytest.mark.parametrize(
    ("began", "today", "expected"),
    [
        ("2020-06-01", date(2026, 1, 1), date(2026, 6, 1)),  # later this year
        ("2020-01-01", date(2026, 1, 1), date(2026, 1, 1)),  # today counts
        ("2019-12-31", date(2026, 1, 1), date(2026, 12, 31)),
        ("2020-02-29", date(2026, 1, 1), date(2026, 2, 28)),  # leap day in a common year
        ("2020-02-29", date(2027, 3, 1), date(2028, 2, 29)),  # and on the day itself in a leap year
        ("2020-05-01", date(2026, 5, 2), date(2027, 5, 1)),  # just passed: next year
    ],
)
def test_next_occurrence(began: str, today: date, expected: date) -> None:
    assert next_occurrence(began, today) == expected
    assert days_until(began, today) == (expected - today).days


# -- the store (both engines) ----------------------------------------------------


def test_shared_and_private_anniversaries_by_viewer(dates: AnniversaryStore) -> None:
    dates.add("futari", "結婚記念日", "2020-06-01", by="wife")
    surprise = dates.add("futari", "夫の誕生日", "1990-03-03", note="サプライズ", by="wife", private=True)
    dates.add("futari", "初デート", "2019-02-14", by="husband")
    dates.add("tonari", "Alice's birthday", "1992-01-20", by="alice")
    assert [a.title for a in dates.visible("futari", "wife")] == ["初デート", "夫の誕生日", "結婚記念日"]
    assert [a.title for a in dates.visible("futari", "husband")] == ["初デート", "結婚記念日"]
    assert surprise.private and surprise.to_json()["private"] is True
    # the husband cannot read, change or remove the surprise: it is "not found", like another household's
    for attempt in (
        lambda: dates.get("futari", surprise.id, "husband"),
        lambda: dates.edit("futari", surprise.id, "husband", title="x"),
        lambda: dates.remove("futari", surprise.id, "husband"),
        lambda: dates.remove("tonari", surprise.id, "alice"),
    ):
        with pytest.raises(NotFoundError, match="no anniversary"):
            attempt()
    assert [a.title for a in dates.visible("futari", "wife")][1] == "夫の誕生日"


def test_upcoming_soonest_first_with_days_and_years(dates: AnniversaryStore) -> None:
    dates.add("futari", "結婚記念日", "2020-06-01", by="wife")
    dates.add("futari", "初デート", "2019-01-08", by="husband")
    dates.add("futari", "元日に出会った", "2018-01-01", by="husband")
    coming = dates.upcoming("futari", "wife", TODAY)
    assert [(u.anniversary.title, u.days, u.years) for u in coming] == [
        ("元日に出会った", 0, 8),
        ("初デート", 7, 7),
        ("結婚記念日", 151, 6),
    ]
    assert [u.anniversary.title for u in dates.upcoming("futari", "wife", TODAY, within_days=7)] == [
        "元日に出会った",
        "初デート",
    ]
    assert coming[1].to_json()["next"] == "2026-01-08"


def test_edit_and_who_may_change_privacy(dates: AnniversaryStore) -> None:
    row = dates.add("futari", "初デート", "2019-02-14", by="husband")
    changed = dates.edit("futari", row.id, "wife", title="初めてのデート", day="2019-02-15")
    assert (changed.title, changed.day, changed.added_by) == ("初めてのデート", "2019-02-15", "husband")
    with pytest.raises(UserInputError, match="only husband"):
        dates.edit("futari", row.id, "wife", private=True)
    hidden = dates.edit("futari", row.id, "husband", private=True)
    assert hidden.private and dates.visible("futari", "wife") == []
    with pytest.raises(UserInputError, match="not an ISO 8601 date"):
        dates.edit("futari", row.id, "husband", day="2月14日")
    assert dates.get("futari", row.id, "husband").day == "2019-02-15"  # nothing lost


def test_bad_input_and_strangers_are_refused(dates: AnniversaryStore) -> None:
    with pytest.raises(UserInputError, match="title is empty"):
        dates.add("futari", "  ", "2020-01-01", by="wife")
    with pytest.raises(NotFoundError, match="not a member"):
        dates.add("futari", "x", "2020-01-01", by="alice")
    assert dates.visible("futari", "wife") == []


def test_count_index_names_the_next_one_for_its_viewer(
    store: HouseholdStore, dates: AnniversaryStore
) -> None:
    assert count_index(store, "futari", TODAY, viewer="wife") == count_index(store, "futari", TODAY)
    dates.add("futari", "結婚記念日", "2020-06-01", by="wife")
    dates.add("futari", "夫の誕生日", "1990-01-13", by="wife", private=True)
    assert count_index(store, "futari", TODAY, viewer="wife").endswith(
        "記念日 2件・次は 1/13 夫の誕生日（あと12日）"
    )
    assert count_index(store, "futari", TODAY, viewer="husband").endswith(
        "記念日 1件・次は 6/1 結婚記念日（あと151日）"
    )
    english = count_index(store, "futari", TODAY, viewer="husband", lang="en")
    assert english.endswith("anniversaries 1, next 6/1 結婚記念日 (in 151 days)")


# -- tools, panel, LINE -----------------------------------------------------------


def test_tools_add_list_edit_remove_as_the_speaker(store: HouseholdStore, engine: MemoryEngine) -> None:
    wife, husband = ctx(store, engine, "wife"), ctx(store, engine, "husband")
    add = BOX.get("add_anniversary")
    assert add is not None and add.effect == "write"
    args = {"title": "夫の誕生日", "date": "1990-03-03", "private": True}
    assert add.summary(add.validate(args)) == "3/3 夫の誕生日 を記念日に追加（自分だけ）"
    assert "added anniversary 夫の誕生日" in run(wife, "add_anniversary", **args).content
    run(husband, "add_anniversary", title="結婚記念日", date="2020-06-01")
    out = run(wife, "list_anniversaries")
    rows = json.loads(out.content)
    assert [(r["title"], r["days"]) for r in rows] == [("夫の誕生日", 61), ("結婚記念日", 151)]
    assert isinstance(out.effects[0], AnniversaryList)
    assert [r["title"] for r in json.loads(run(husband, "list_anniversaries").content)] == ["結婚記念日"]
    first = rows[0]["id"]
    with pytest.raises(NotFoundError):
        run(husband, "remove_anniversary", id=first)
    edit = BOX.get("edit_anniversary")
    assert edit is not None and edit.summary(edit.validate({"id": first, "date": "1990-03-04"})) == (
        f"記念日 {first} を変更：日付→3/4"
    )
    assert run(wife, "edit_anniversary", id=first, date="1990-03-04").content.endswith("(private)")
    assert run(wife, "remove_anniversary", id=first).content == "removed anniversary 夫の誕生日"


def test_line_draws_the_list_as_a_flex_bubble(store: HouseholdStore, engine: MemoryEngine) -> None:
    wife = ctx(store, engine, "wife")
    run(wife, "add_anniversary", title="結婚記念日", date="2020-01-01")
    run(wife, "add_anniversary", title="初デート", date="2019-01-08")
    effects = list(run(wife, "list_anniversaries").effects)
    (bubble,) = effect_messages(effects, "ja")
    assert bubble["type"] == "flex" and bubble["altText"] == "記念日: 結婚記念日（1/1）、初デート（1/8）"
    rows = bubble["contents"]["body"]["contents"]
    assert [[c["text"] for c in r["contents"]] for r in rows] == [
        ["結婚記念日（1/1）", "今日"],
        ["初デート（1/8）", "あと7日"],
    ]
    (empty,) = effect_messages([AnniversaryList(())], "en")
    assert empty["altText"] == "Anniversaries: No anniversaries yet."


def test_panel_actions_and_view_follow_the_viewer(store: HouseholdStore) -> None:
    added = apply(
        store,
        "futari",
        ACTIONS.validate_python(
            {"action": "add_anniversary", "title": "記念日", "date": "2020-01-05", "private": "on"}
        ),
        by="wife",
    )
    assert added.row["private"] is True
    assert [
        a["title"] for a in panel_view(store, "futari", "anniversaries", viewer="wife")["anniversaries"]
    ] == ["記念日"]
    assert panel_view(store, "futari", "anniversaries", viewer="husband")["anniversaries"] == []
    remove = ACTIONS.validate_python({"action": "remove_anniversary", "id": added.row["id"]})
    with pytest.raises(NotFoundError):
        apply(store, "futari", remove, by="husband")
    assert apply(store, "futari", remove, by="wife").row["title"] == "記念日"


# -- CLI ---------------------------------------------------------------------------


def test_cli_add_list_remove_as_a_member(cli: Cli, db_path: Path) -> None:
    cli("household", "init", "--name", "futari", "--member", "wife", "--member", "husband")
    made = cli("household", "anniversary", "add", "結婚記念日", "2020-06-01", "--member", "wife", "--json")
    assert made.code == 0 and made.json()["private"] is False
    cli("household", "anniversary", "add", "秘密", "2020-02-02", "--member", "wife", "--private")
    mine = cli("household", "anniversary", "list", "--member", "wife", "--json").json()
    theirs = cli("household", "anniversary", "list", "--member", "husband", "--json").json()
    assert [r["title"] for r in mine] == ["秘密", "結婚記念日"] and [r["title"] for r in theirs] == [
        "結婚記念日"
    ]
    bad = cli("household", "anniversary", "add", "x", "6月1日", "--member", "wife")
    assert bad.code == 1 and "2026-12-03" in bad.err
    stranger = cli("household", "anniversary", "list", "--member", "alice")
    assert stranger.code == 1 and "not a member" in stranger.err
    gone = cli("household", "anniversary", "remove", mine[0]["id"], "--member", "husband")
    assert gone.code == 1 and "no anniversary" in gone.err
    assert cli("household", "anniversary", "remove", mine[0]["id"], "--member", "wife").code == 0
