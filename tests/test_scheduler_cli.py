"""``shitsuji remind``: settings with clear errors, a round without LINE (the web list only), the status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from .conftest import Cli
from .test_cli_bad_input import one_line_error


def test_remind_set_run_status_and_list(cli: Cli) -> None:
    assert (
        cli("household", "init", "--name", "futari", "--member", "wife", "--time-zone", "Asia/Tokyo").code
        == 0
    )
    one_line_error(cli("remind", "set", "wife", "--digest-at", "7時半"), "HH:MM", "digest time")
    one_line_error(cli("remind", "set", "wife", "--quiet", "22:00"), "HH:MM-HH:MM")
    one_line_error(cli("remind", "set", "wife", "--lead", "2000"), "0 to 1440")
    one_line_error(cli("remind", "set", "nobody"), "nobody")
    done = cli("remind", "set", "wife", "--reminders", "--lead", "5", "--quiet", "23:00-06:30", "--json")
    assert done.code == 0 and done.json()["quiet_to"] == "06:30" and done.json()["reminders"] is True
    assert cli("remind", "run", "--once").code == 0
    status = cli("remind", "status", "--json").json()
    assert status["pushes_used"] == 0 and status["push_budget"] == 200 and status["deliveries"] == {}
    assert cli("remind", "list", "wife", "--json").json() == []


def test_remind_list_shows_times_on_the_households_clock(cli: Cli, db_path: Path) -> None:
    from shitsuji.household import HouseholdStore
    from shitsuji.store import database

    assert cli("household", "init", "--name", "futari", "-m", "wife", "--time-zone", "Asia/Tokyo").code == 0
    assert cli("remind", "set", "wife", "--reminders", "--lead", "5", "--quiet", "off").code == 0
    assert cli("remind", "run", "--once").code == 0  # the planner's mark: now
    db = database(str(db_path))
    with db.write() as tx:  # as if that round had run ten minutes ago
        earlier = (datetime.now(UTC) - timedelta(minutes=10)).isoformat(timespec="seconds")
        tx.execute("UPDATE schedule_marks SET planned_to = ?", (earlier,))
    start = datetime.now(ZoneInfo("Asia/Tokyo")).replace(second=0, microsecond=0) + timedelta(minutes=2)
    local = start.replace(tzinfo=None).isoformat(timespec="minutes")  # the household's local time
    HouseholdStore(db).add_event("futari", "歯医者", local, by="wife")  # its reminder: 3 minutes ago
    assert cli("remind", "run", "--once").code == 0
    stored = cli("remind", "list", "wife", "--json").json()
    assert stored, "the reminder was not planned"
    shown = cli("remind", "list", "wife")
    fire_at = datetime.fromisoformat(stored[0]["at"]).astimezone(ZoneInfo("Asia/Tokyo"))
    assert shown.code == 0 and fire_at.strftime("%Y-%m-%d %H:%M JST") in shown.out, shown.out
