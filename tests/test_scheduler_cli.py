"""``shitsuji remind``: settings with clear errors, a round without LINE (the web list only), the status."""

from __future__ import annotations

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
