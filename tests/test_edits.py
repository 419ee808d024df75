"""Changing and removing events and expenses through the butler's tools: every one a card (on no
channel's allow-list), the card naming the row, the change checked as an addition is, nothing lost
on bad input, another household's id "not found". Both engines."""

from __future__ import annotations

import pytest

from shitsuji.agent import DEFAULT_POLICIES, ToolInputError
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import DOMAIN_TOOLS, HouseholdStore, butler_toolbox
from shitsuji.memory import MemoryEngine
from shitsuji.web._cards import card_view
from shitsuji.web._i18n import Words

from . import test_household
from .test_anniversaries import ctx
from .test_anniversaries import said as run

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice)
BOX = butler_toolbox()


def test_no_change_or_removal_runs_without_a_card_on_any_channel() -> None:
    writes = {t.name for t in DOMAIN_TOOLS if t.name.startswith(("edit_", "remove_"))}
    assert {
        "edit_event",
        "remove_event",
        "edit_expense",
        "remove_expense",
        "edit_anniversary",
        "edit_recipe",
    } <= writes
    assert all(t.effect == "write" for t in DOMAIN_TOOLS if t.name in writes)
    for channel, policy in DEFAULT_POLICIES.items():
        assert not any(policy.may_auto_run(name, tainted=False) for name in writes), channel


def test_an_event_changes_only_where_asked(store: HouseholdStore, engine: MemoryEngine) -> None:
    wife = ctx(store, engine, "wife")
    event = store.add_event("futari", "歯医者", "2026-01-05T10:00", "2026-01-05T11:00", "保険証", by="wife")
    tool = BOX.get("edit_event")
    assert tool is not None
    args = tool.validate({"id": event.id, "start": "2026-01-06T10:00", "end": "2026-01-06T11:00"})
    assert tool.summary(args) == f"予定 {event.id} を変更：日時→1/6 10:00–11:00"
    assert run(wife, "edit_event", **args) == "changed event 歯医者 at 1/6 10:00–11:00"
    [now] = store.events("futari")
    assert (now.title, now.start, now.end, now.note) == (
        "歯医者",
        "2026-01-06T10:00",
        "2026-01-06T11:00",
        "保険証",
    )
    with pytest.raises(UserInputError, match="before start"):
        run(wife, "edit_event", id=event.id, start="2026-01-07T10:00")  # after its end
    with pytest.raises(ToolInputError):
        run(wife, "edit_event", id=event.id, start="来週")
    assert store.events("futari") == [now]  # nothing lost
    alice = ctx(store, engine, "alice")
    with pytest.raises(NotFoundError):
        run(alice, "edit_event", id=event.id, title="x")
    assert run(wife, "remove_event", id=event.id) == "removed event 歯医者"
    assert store.events("futari") == []


def test_an_expense_changes_and_is_removed(store: HouseholdStore, engine: MemoryEngine) -> None:
    husband = ctx(store, engine, "husband")
    spent = store.add_expense("futari", 3000, "食費", "スーパー", "2026-01-01", by="wife")
    assert run(husband, "edit_expense", id=spent.id, amount=3200, category="日用品") == (
        "changed expense to ¥3,200 日用品 on 2026-01-01"
    )
    [now] = store.expenses("futari", "2026-01")
    assert (now.amount_yen, now.category, now.note, now.added_by) == (3200, "日用品", "スーパー", "wife")
    with pytest.raises(ToolInputError):
        run(husband, "edit_expense", id=spent.id, amount=0)
    with pytest.raises(NotFoundError):
        run(ctx(store, engine, "alice"), "remove_expense", id=spent.id)
    assert run(husband, "remove_expense", id=spent.id) == "removed expense ¥3,200 日用品 on 2026-01-01"


@pytest.mark.parametrize(
    ("lang", "title"), [("ja", "予定「歯医者」を変更"), ("en", "Change the event “歯医者”")]
)
def test_the_web_card_names_the_row_in_the_pages_language(lang: str, title: str) -> None:
    card = {"tool": "edit_event", "input": {"id": "e_1", "start": "2026-01-06T10:00"}, "subject": "歯医者"}
    view = card_view(card, Words("ja" if lang == "ja" else "en"))
    assert view["title"] == title
    assert [f["label"] for f in view["fields"]] == (["日時"] if lang == "ja" else ["When"])
