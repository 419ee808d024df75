"""Recurring and private to-dos in the To-dos panel, in a real browser: the rule in the page's language,
ticking one moves it to its next day (it stays on the list), the spouse never sees a private one.
Japanese on a desktop, English on a phone."""

from __future__ import annotations

import time
from datetime import date

import pytest
from playwright.sync_api import Browser, expect

from shitsuji.household import Recurrence

from .browser_support import DESKTOP, PHONE, opened, sign_in
from .web_support import HOME, Site


@pytest.mark.parametrize(
    ("locale", "size", "rule"),
    [("ja-JP", DESKTOP, "毎週月・木"), ("en-US", PHONE, "every Mon, Thu")],
    ids=["ja-desktop", "en-phone"],
)
def test_a_recurring_todo_shows_its_rule_and_moves_on_when_ticked(
    browser: Browser, base: str, site: Site, locale: str, size: dict[str, int], rule: str
) -> None:
    store = site.backend.store
    rule_of = Recurrence.weekly(["mon", "thu"])
    todo = store.add_todo(HOME, "燃えるゴミ", by="wife", repeat=rule_of)
    store.add_todo(HOME, "へそくり記帳", by="wife", private=True)
    with (
        opened(browser, base, locale=locale, viewport=size) as wife,
        opened(browser, base, locale=locale) as husband,
    ):
        sign_in(wife)
        sign_in(husband, "husband")
        for page in (wife, husband):
            page.locator("[data-panel=todos]").click()
        row = wife.locator("#panel-content li.row", has_text="燃えるゴミ")
        expect(row).to_contain_text(rule)
        expect(wife.locator("#panel-content li.row", has_text="へそくり記帳")).to_be_visible()
        expect(husband.locator("#panel-content li.row", has_text="燃えるゴミ")).to_be_visible()
        expect(husband.locator("#panel-content li.row", has_text="へそくり")).to_have_count(0)
        row.locator("form[data-act] button.tick").click()
        after = rule_of.next_after(max(date.fromisoformat(todo.due or ""), store.today(HOME)))
        deadline = time.monotonic() + 60
        while (moved := next(t for t in store.todos(HOME) if t.id == todo.id)).due != after.isoformat():
            assert time.monotonic() < deadline, moved  # the panel's action never arrived
            time.sleep(0.05)
        assert not moved.done
        expect(wife.locator("#panel-content li.row", has_text="燃えるゴミ")).to_contain_text(
            rule
        )  # still listed
