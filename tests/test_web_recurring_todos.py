"""A recurring to-do (a garbage day, a monthly bill) added from the to-do panel's own form, at the JSON
API and as a plain form: the rule stored as data, the 「自分だけ」 box, refusals in the member's
language with nothing stored, and the audit row committed with the change (both engines)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from shitsuji.store import database

from .test_memory_transactions import _refuse_audit_rows
from .test_web_api import csrf_headers, signed_in
from .web_support import HOME, Site

ACT = "/api/panel-actions"


def act(client: TestClient, csrf: str, lang: str = "ja", **body: Any) -> httpx.Response:
    return client.post(ACT, json=body, headers=csrf_headers(csrf) | {"Accept-Language": lang})


def test_each_kind_of_rule_is_added_from_the_panel_and_shown_with_its_rule(site: Site) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    added = {}
    for title, rule in (
        ("燃えるゴミ", {"repeat": "weekly", "weekdays": ["mon", "thu"]}),
        ("資源ごみ", {"repeat": "monthly_weekday", "weeks": ["2", "4"], "weekdays": ["wed"]}),
        ("家賃", {"repeat": "monthly_day", "day_of_month": "31", "weekdays": ["sun"]}),  # a stray box
    ):
        response = act(wife, csrf, action="add_todo", title=title, due="2026-12-01", **rule)
        assert response.status_code == 200, response.text
        added[title] = response.json()["row"]
    # the first occurrence on or after the day given: Tue 1 Dec → Thu 3, the 2nd Wed (9), the last day
    assert {t: r["due"] for t, r in added.items()} == {
        "燃えるゴミ": "2026-12-03",
        "資源ごみ": "2026-12-09",
        "家賃": "2026-12-31",
    }
    assert added["燃えるゴミ"]["repeat"] == {"kind": "weekly", "weekdays": ["mon", "thu"]}
    assert added["資源ごみ"]["repeat"] == {"kind": "monthly_weekday", "weekdays": ["wed"], "nths": [2, 4]}
    assert added["家賃"]["repeat"] == {"kind": "monthly_day", "day": 31}  # the stray weekday is not read
    panel = wife.get("/panels/todos").text
    for shown in ("🔁 毎週月・木", "🔁 毎月第2・第4水曜", "🔁 毎月末日"):
        assert shown in panel
    english = wife.get("/panels/todos", headers={"Accept-Language": "en"}).text
    assert "🔁 every Mon, Thu" in english and "🔁 last day of each month" in english
    # completing a garbage day moves it on, as the butler's tool's to-dos do
    done = act(wife, csrf, action="complete_todo", id=added["燃えるゴミ"]["id"]).json()["row"]
    assert done["due"] > "2026-12-03" and "done_at" not in done
    # … and each add is in the audit log as the member's own panel action
    logged = [e for e in site.backend.butler.audit.events(household=HOME) if e.action == "panel.add_todo"]
    assert sorted(e.detail["name"] for e in logged) == ["家賃", "燃えるゴミ", "資源ごみ"]
    assert site.backend.butler.proposals.list(household=HOME) == []  # no card was made


def test_a_private_recurring_to_do_is_its_owners_alone(site: Site) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    husband, _ = signed_in(site, "husband", HOME)
    response = act(
        wife, csrf, action="add_todo", title="ジム", repeat="weekly", weekdays=["sat"], private=True
    )
    assert response.status_code == 200, response.text
    assert response.json()["row"]["private"] is True
    assert "ジム" in wife.get("/panels/todos").text
    assert "ジム" not in husband.get("/panels/todos").text
    assert site.backend.store.todos(HOME, viewer="husband") == []


def test_the_plain_form_sends_one_field_per_ticked_box(site: Site) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    form = wife.post(
        "/panel-actions",
        data={
            "csrf": csrf,
            "action": "add_todo",
            "title": "プラごみ",
            "due": "2026-12-01",
            "repeat": "weekly",
            "weekdays": ["tue", "fri"],
            "weeks": ["1"],  # shown only for "nth weekday": not read for a weekly rule
            "day_of_month": "",
            "private": "true",
            "back": "/",
        },
        follow_redirects=False,
    )
    assert form.status_code == 303, form.text
    [todo] = site.backend.store.todos(HOME, viewer="wife")
    assert todo.repeat is not None and todo.repeat.to_json() == {"kind": "weekly", "weekdays": ["tue", "fri"]}
    assert (todo.due, todo.private) == ("2026-12-01", True)
    plain = wife.post(  # "does not repeat" sends an empty choice: a to-do done once
        "/panel-actions",
        data={"csrf": csrf, "action": "add_todo", "title": "電球", "repeat": "", "weekdays": ["mon"]},
        follow_redirects=False,
    )
    assert plain.status_code == 303
    assert [t.repeat for t in site.backend.store.todos(HOME) if t.title == "電球"] == [None]


def test_a_to_do_added_with_a_time_of_day_is_due_at_that_time_and_comes_back_at_it(site: Site) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    garbage = act(
        wife,
        csrf,
        action="add_todo",
        title="燃えるゴミ",
        due="2026-12-01",
        time="7:30",
        repeat="weekly",
        weekdays=["mon", "thu"],
    )
    assert garbage.status_code == 200, garbage.text
    row = garbage.json()["row"]
    assert row["due"] == "2026-12-03T07:30"  # Thu 3 Dec at 07:30 (the form may send 7:30)
    moved = act(wife, csrf, action="complete_todo", id=row["id"]).json()["row"]
    assert moved["due"] == "2026-12-07T07:30"  # the next Monday, at the same time
    # a time alone is today's, on the household's calendar; an empty time leaves the day alone
    call = act(wife, csrf, action="add_todo", title="電話する", time="18:05").json()["row"]
    assert call["due"] == f"{site.backend.store.today(HOME).isoformat()}T18:05"
    plain = act(wife, csrf, action="add_todo", title="電球", due="2026-12-02", time="").json()["row"]
    assert plain["due"] == "2026-12-02"
    panel = wife.get("/panels/todos").text
    assert 'name="time" type="time"' in panel and "07:30" in panel and "18:05" in panel


@pytest.mark.parametrize(
    ("rule", "ja", "en"),
    [
        ({"repeat": "weekly"}, "曜日を選んでください", "Choose the weekdays"),
        ({"repeat": "weekly", "weekdays": ["mon", "funday"]}, "曜日「funday」はわかりません", "not known"),
        ({"repeat": "monthly_weekday", "weekdays": ["wed"]}, "第何週か（第1〜第5）を選んで", "which weeks"),
        ({"repeat": "monthly_weekday", "weeks": ["6"], "weekdays": ["wed"]}, "1〜5で選んで", "from 1 to 5"),
        ({"repeat": "monthly_weekday", "weeks": [2]}, "曜日を選んでください", "Choose the weekdays"),
        ({"repeat": "monthly_day"}, "毎月何日かを選んで", "Choose the day of the month"),
        ({"repeat": "monthly_day", "day_of_month": 32}, "1〜31で選んで", "from 1 to 31"),
        ({"repeat": "monthly_day", "day_of_month": "x"}, "「x」は選べません", "not “x”"),
        ({"repeat": "weekly", "weekdays": ["mon"], "time": "25:00"}, "時刻「25:00」はわかりません", "HH:MM"),
        ({"time": "7時半"}, "時刻「7時半」はわかりません", "not a time of day"),
    ],
)
def test_a_wrong_rule_is_refused_in_the_members_language_and_nothing_is_stored(
    site: Site, rule: dict[str, Any], ja: str, en: str
) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    japanese = act(wife, csrf, "ja", action="add_todo", title="ゴミ出し", **rule)
    assert japanese.status_code == 400, japanese.text
    assert ja in japanese.json()["message"] and japanese.json()["error"]  # the English stays for the API
    english = act(wife, csrf, "en", action="add_todo", title="ゴミ出し", **rule)
    assert english.status_code == 400 and en in english.json().get("message", english.json()["error"])
    page = wife.post(  # the plain form's error page, in the member's language too
        "/panel-actions",
        data={"csrf": csrf, "action": "add_todo", "title": "ゴミ出し", **rule},
        headers={"Accept": "text/html", "Accept-Language": "ja"},
    )
    assert page.status_code == 400 and ja in page.text
    assert site.backend.store.todos(HOME) == []
    assert not [e for e in site.backend.butler.audit.events(household=HOME) if e.action.startswith("panel.")]


def test_a_panel_change_commits_with_its_audit_row_or_not_at_all(site: Site, target: str) -> None:
    wife, csrf = signed_in(site, "wife", HOME)
    _refuse_audit_rows(database(target))
    with pytest.raises(Exception, match="audit refused"):  # the test client raises the server's error
        act(wife, csrf, action="add_todo", title="燃えるゴミ", repeat="weekly", weekdays=["mon"])
    with pytest.raises(Exception, match="audit refused"):
        act(wife, csrf, action="add_shopping_item", name="牛乳")
    dump = site.backend.store.dump(HOME)
    assert dump["todos"] == [] and dump["shopping_items"] == []  # the change went with its row
