"""``shitsuji household events/todos`` read as the apps do (``privacy.Viewer``): with ``--member`` what
that member sees (shared + their own private rows), without it the shared rows only and a line on
stderr saying how many private ones were left out; a recurring to-do shows its rule."""

from __future__ import annotations

from pathlib import Path

from shitsuji.household import HouseholdStore, Recurrence
from shitsuji.store import database

from .conftest import Cli


def _seed(cli: Cli, db_path: Path) -> None:
    assert cli("household", "init", "--name", "futari", "-m", "wife", "-m", "husband").code == 0
    store = HouseholdStore(database(db_path))
    store.add_event("futari", "忘年会", "2099-12-21T19:00", by="wife")
    store.add_event("futari", "歯医者", "2099-12-20T10:00", by="wife", private=True)
    store.add_event("futari", "サプライズの下見", "2099-12-22T15:00", by="husband", private=True)
    store.add_todo("futari", "燃えるゴミ", "2099-12-01", by="wife", repeat=Recurrence.weekly(["mon", "thu"]))
    store.add_todo("futari", "誕生日プレゼント", by="husband", private=True)
    store.add_todo("futari", "年賀状", by="wife", private=True)


def test_without_a_member_only_the_shared_rows_show_and_the_hidden_are_counted(
    cli: Cli, db_path: Path
) -> None:
    _seed(cli, db_path)
    todos = cli("household", "todos", "--json")
    assert todos.code == 0, todos.err
    assert [t["title"] for t in todos.json()] == ["燃えるゴミ"]
    assert "2 private to-dos not shown" in todos.err and "--member" in todos.err
    table = cli("household", "todos")
    assert "燃えるゴミ" in table.out and "every Mon, Thu" in table.out  # the rule, in its own column
    assert "誕生日プレゼント" not in table.out and "年賀状" not in table.out
    events = cli("household", "events", "--from", "2099-12-01", "--json")
    assert [e["title"] for e in events.json()] == ["忘年会"]
    assert "2 private events not shown" in events.err
    shown = cli("household", "events", "--from", "2099-12-01")
    assert "忘年会" in shown.out and "歯医者" not in shown.out and "下見" not in shown.out


def test_a_member_sees_the_shared_rows_and_their_own_private_ones(cli: Cli, db_path: Path) -> None:
    _seed(cli, db_path)
    wife = cli("household", "todos", "--member", "wife", "--json")
    assert wife.code == 0 and wife.err == ""  # nothing left out of what she may see
    assert {t["title"]: t.get("private", False) for t in wife.json()} == {"燃えるゴミ": False, "年賀状": True}
    husband = cli("household", "events", "-m", "husband", "--from", "2099-12-01", "--json").json()
    assert [e["title"] for e in husband] == ["忘年会", "サプライズの下見"]
    table = cli("household", "events", "--member", "husband", "--from", "2099-12-01")
    assert "private" in table.out and "サプライズの下見" in table.out and "歯医者" not in table.out


def test_a_member_of_no_such_household_is_refused(cli: Cli, db_path: Path) -> None:
    _seed(cli, db_path)
    stranger = cli("household", "todos", "--member", "alice")
    assert stranger.code != 0 and "not a member" in stranger.err
    assert stranger.out == ""
