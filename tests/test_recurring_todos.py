"""Recurring to-dos (garbage days) and private events and to-dos, on both engines: the rule is data,
completing one moves it to its next occurrence, a private row is its owner's alone on every read path,
and a card about a row names it (not its id)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from shitsuji.agent import DEFAULT_POLICIES, Proposals
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import HouseholdStore, Recurrence, butler_toolbox, count_index, panel_view
from shitsuji.memory import MemoryEngine
from shitsuji.web._cards import card_view
from shitsuji.web._i18n import Words

from . import test_household
from .conftest import Clock
from .test_anniversaries import ctx
from .test_anniversaries import said as run

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice); 2026-01-01 (Thu)
BOX = butler_toolbox()


def test_the_three_shapes_of_a_rule() -> None:
    burnable = Recurrence.weekly(["mon", "木"])
    assert burnable.first_from(date(2026, 1, 1)) == date(2026, 1, 1)  # a Thursday
    assert burnable.next_after(date(2026, 1, 1)) == date(2026, 1, 5)
    recycling = Recurrence.monthly_weekday([2, 4], ["wed"])
    assert list(recycling.days(date(2026, 1, 1), date(2026, 2, 28))) == [
        date(2026, 1, 14),
        date(2026, 1, 28),
        date(2026, 2, 11),
        date(2026, 2, 25),
    ]
    month_end = Recurrence.monthly_day(31)
    assert month_end.next_after(date(2026, 1, 31)) == date(2026, 2, 28)
    assert (burnable.describe("ja"), burnable.describe("en")) == ("毎週月・木", "every Mon, Thu")
    assert recycling.describe("ja") == "毎月第2・第4水曜"
    assert recycling.describe("en") == "2nd, 4th Wed of each month"
    assert Recurrence.monthly_day(25).describe("ja") == "毎月25日"
    assert Recurrence.loads(recycling.dumps()) == recycling
    with pytest.raises(UserInputError, match="weekday"):
        Recurrence.weekly(["someday"])
    with pytest.raises(UserInputError, match="1 to 5"):
        Recurrence.monthly_weekday([6], ["wed"])


def test_completing_a_recurring_todo_moves_it_to_the_next_time(store: HouseholdStore, clock: Clock) -> None:
    rule = Recurrence.weekly(["mon", "thu"])
    todo = store.add_todo("futari", "燃えるゴミ", by="wife", repeat=rule)
    assert todo.due == "2026-01-01" and todo.repeat == rule
    stored = store.database.execute("SELECT recur FROM todos WHERE id = ?", (todo.id,)).fetchone()[0]
    assert json.loads(stored) == {"kind": "weekly", "weekdays": ["mon", "thu"]}  # data, not text
    moved, changed = store.complete_todo("futari", todo.id, by="husband")
    assert changed and moved.due == "2026-01-05" and not moved.done
    clock.advance(days=5)  # Tuesday 6th: Monday's was never ticked
    moved, _ = store.complete_todo("futari", todo.id, by="wife")
    assert moved.due == "2026-01-08"  # the first after today, not Monday's again
    [open_one] = store.todos("futari")
    assert open_one.due == "2026-01-08" and open_one.to_json()["repeat"]["weekdays"] == ["mon", "thu"]
    timed = store.add_todo(
        "futari", "資源ごみ", "2026-01-01T07:30", by="wife", repeat=Recurrence.monthly_day(15)
    )
    assert timed.due == "2026-01-15T07:30"  # the time of day kept


def test_the_tool_is_a_card_and_adds_a_rule_as_data(store: HouseholdStore, engine: MemoryEngine) -> None:
    tool = BOX.get("add_recurring_todo")
    assert tool is not None and tool.effect == "write"
    for channel, policy in DEFAULT_POLICIES.items():
        assert not policy.may_auto_run(tool.name, tainted=False), channel
    args = tool.validate({"title": "資源ごみ", "weekdays": ["wed"], "weeks": [2, 4]})
    assert tool.summary(args) == "資源ごみ（毎月第2・第4水曜）をくり返しのToDoに追加"
    card = {"tool": tool.name, "input": args, "state": "pending"}
    assert (
        card_view(card, Words("en"))["title"]
        == "Add the recurring to-do “資源ごみ” (2nd, 4th Wed of each month)"
    )
    wife = ctx(store, engine, "wife")
    answer = run(wife, "add_recurring_todo", **args)
    assert answer.startswith("added recurring to-do 資源ごみ (2nd, 4th Wed of each month), next 2026-01-14")
    with pytest.raises(UserInputError, match="not both"):
        run(wife, "add_recurring_todo", title="x", weekdays=["mon"], day_of_month=3)
    [row] = store.todos("futari")
    assert row.repeat == Recurrence.monthly_weekday([2, 4], ["wed"])
    assert panel_view(store, "futari", "todos", viewer="husband")["todos"][0]["repeat"]["nths"] == [2, 4]


def test_a_private_event_or_todo_is_its_owners_alone(store: HouseholdStore, engine: MemoryEngine) -> None:
    ring = store.add_event("futari", "指輪を受け取る", "2026-01-05T10:00", by="husband", private=True)
    store.add_event("futari", "歯医者", "2026-01-06T10:00", by="wife")
    gift = store.add_todo("futari", "プレゼントを包む", by="husband", private=True)
    wife, husband = ctx(store, engine, "wife"), ctx(store, engine, "husband")
    assert "指輪" not in run(wife, "list_events") and "指輪" in run(husband, "list_events")
    assert "プレゼント" not in run(wife, "list_todos") and "プレゼント" in run(husband, "list_todos")
    assert [e.title for e in store.events("futari", viewer="wife")] == ["歯医者"]
    assert panel_view(store, "futari", "calendar", viewer="wife")["events"][0]["title"] == "歯医者"
    today = store.today("futari")
    assert "予定 1件・ToDo 0件" in count_index(store, "futari", today, viewer="wife")
    assert "予定 2件・ToDo 1件" in count_index(store, "futari", today, viewer="husband")
    with pytest.raises(NotFoundError):
        store.remove_event("futari", ring.id, viewer="wife")
    with pytest.raises(NotFoundError):
        store.complete_todo("futari", gift.id, by="wife")
    assert store.title_of("futari", ring.id, viewer="wife") is None
    assert store.events("futari", viewer="husband")[0].private
    assert run(wife, "add_todo", title="内緒", private=True).startswith("added to-do 内緒")
    assert [t.title for t in store.todos("futari", viewer="husband")] == ["プレゼントを包む"]


def test_a_card_about_a_row_names_it_for_the_speaker_only(
    store: HouseholdStore, engine: MemoryEngine
) -> None:
    event = store.add_event("futari", "歯医者", "2026-01-06T10:00", by="wife")
    secret = store.add_event("futari", "サプライズ", "2026-01-07T10:00", by="husband", private=True)
    todo = store.add_todo("futari", "ゴミ出し", by="wife")
    wife = ctx(store, engine, "wife")
    remove, complete = BOX.get("remove_event"), BOX.get("complete_todo")
    assert remove is not None and complete is not None
    assert remove.summary({"id": event.id}, wife) == "予定 「歯医者」 を削除"
    assert complete.summary({"id": todo.id}, wife) == "ToDo 「ゴミ出し」 を完了にする"
    assert remove.summary({"id": secret.id}, wife) == f"予定 {secret.id} を削除"  # not hers to name


def test_the_stored_card_that_line_and_the_terminal_show_names_the_row(
    store: HouseholdStore, engine: MemoryEngine
) -> None:
    event = store.add_event("futari", "歯医者", "2026-01-06T10:00", by="wife")
    tool = BOX.get("remove_event")
    assert tool is not None
    proposal = Proposals(store.database).propose(tool, {"id": event.id}, ctx(store, engine, "wife"))
    assert proposal.summary == "予定 「歯医者」 を削除" and proposal.input == {"id": event.id}
