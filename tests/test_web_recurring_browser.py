"""The to-do panel's "繰り返し" choice in a real browser: only the chosen kind's fields show, the ticked
weekdays and the 「自分だけ」 box reach the server, the row shows 🔁 and its rule, and a rule the
server refuses is said in Japanese with everything typed kept."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from shitsuji.household import HouseholdStore
from shitsuji.store import database

from .browser_support import Shoot, sign_in
from .web_support import HOME, Site


def test_a_garbage_day_is_added_from_the_to_do_panel_and_a_wrong_rule_is_explained(
    page: Page, site: Site, shoot: Shoot
) -> None:
    sign_in(page, "wife")
    page.locator("[data-panel=todos]").click()
    form = page.locator("#panel-content form.adder")
    expect(form.locator("select[name=repeat]")).to_be_visible()
    weekdays = form.locator("fieldset[data-repeat~=weekly]")
    weeks = form.locator("fieldset[data-repeat=monthly_weekday]")
    day = form.locator("fieldset[data-repeat=monthly_day]")
    for hidden in (weekdays, weeks, day):  # "does not repeat": no rule fields
        expect(hidden).to_be_hidden()

    form.locator("input[name=title]").fill("燃えるゴミ")
    form.locator("select[name=repeat]").select_option("weekly")
    expect(weekdays).to_be_visible()
    expect(weeks).to_be_hidden()
    expect(day).to_be_hidden()
    weekdays.get_by_label("月").check()
    weekdays.get_by_label("木").check()
    form.get_by_label("自分だけ").check()
    shoot(page, "todo-repeat-form")
    form.locator("button[type=submit]").click()
    row = page.locator("#panel-content .rows li", has_text="燃えるゴミ")
    expect(row).to_contain_text("🔁 毎週月・木")
    expect(row).to_contain_text("🔒")
    [todo] = site.backend.store.todos(HOME, viewer="wife")
    assert todo.repeat is not None and todo.repeat.to_json() == {"kind": "weekly", "weekdays": ["mon", "thu"]}
    assert todo.private and site.backend.store.todos(HOME, viewer="husband") == []

    # the 2nd and 4th Wednesday, shown with the weeks' boxes
    form = page.locator("#panel-content form.adder")
    form.locator("input[name=title]").fill("資源ごみ")
    form.locator("select[name=repeat]").select_option("monthly_weekday")
    expect(form.locator("fieldset[data-repeat=monthly_weekday]")).to_be_visible()
    form.locator("fieldset[data-repeat=monthly_weekday]").get_by_label("第2").check()
    form.locator("fieldset[data-repeat=monthly_weekday]").get_by_label("第4").check()
    form.locator("fieldset[data-repeat~=weekly]").get_by_label("水").check()
    form.locator("button[type=submit]").click()
    expect(page.locator("#panel-content .rows li", has_text="資源ごみ")).to_contain_text(
        "🔁 毎月第2・第4水曜"
    )

    # a day of the month not chosen: said in Japanese, the title and the choice kept, nothing stored
    form = page.locator("#panel-content form.adder")
    form.locator("input[name=title]").fill("家賃")
    form.locator("select[name=repeat]").select_option("monthly_day")
    form.locator("button[type=submit]").click()
    expect(page.locator("#panel-content .panel-problem")).to_contain_text("毎月何日かを選んでください")
    form = page.locator("#panel-content form.adder")
    expect(form.locator("input[name=title]")).to_have_value("家賃")
    expect(form.locator("select[name=repeat]")).to_have_value("monthly_day")
    assert [t.title for t in site.backend.store.todos(HOME)] == ["燃えるゴミ", "資源ごみ"]
    form.locator("select[name=day_of_month]").select_option("31")  # 末日
    form.locator("button[type=submit]").click()
    expect(page.locator("#panel-content .rows li", has_text="家賃")).to_contain_text("🔁 毎月末日")
    expect(page.locator("#panel-content .panel-problem")).to_have_count(0)


def test_ticked_weekdays_survive_a_live_redraw(page: Page, site: Site) -> None:
    sign_in(page, "husband")
    page.locator("[data-panel=todos]").click()
    form = page.locator("#panel-content form.adder")
    form.locator("input[name=title]").fill("ビン・缶")
    form.locator("select[name=repeat]").select_option("weekly")
    form.locator("fieldset[data-repeat~=weekly]").get_by_label("金").check()
    elsewhere = HouseholdStore(database(site.db))  # the spouse adds a to-do while he picks the days
    try:
        elsewhere.add_todo(HOME, "回覧板", by="wife")
    finally:
        elsewhere.close()
    expect(page.locator("#panel-content .rows li")).to_contain_text(["回覧板"])  # redrawn
    form = page.locator("#panel-content form.adder")
    expect(form.locator("select[name=repeat]")).to_have_value("weekly")
    expect(form.locator("fieldset[data-repeat~=weekly]").get_by_label("金")).to_be_checked()
    form.locator("button[type=submit]").click()
    expect(page.locator("#panel-content .rows li", has_text="ビン・缶")).to_contain_text("🔁 毎週金")
