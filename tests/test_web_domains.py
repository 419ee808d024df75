"""The household domains beyond the first four lists, in a real browser: their panels and actions,
live for the spouse, who never sees the other's private rows. Japanese and English, desktop and phone.

Screenshots as in ``test_web_browser``.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from shitsuji.household import AnniversaryStore, RecipeStore

from .browser_support import DESKTOP, PHONE, Shoot, ja_day, mark_page, opened, same_document, sign_in
from .web_support import HOME, Site

LANGS = pytest.mark.parametrize(
    ("locale", "size", "words"),
    [
        (
            "ja-JP",
            DESKTOP,
            {"tab": "記念日", "add": "追加", "delete": "削除", "private": "自分だけ", "in": "あと{n}日"},
        ),
        (
            "en-US",
            PHONE,
            {
                "tab": "Anniversaries",
                "add": "Add",
                "delete": "Delete",
                "private": "Only me",
                "in": "in {n} days",
            },
        ),
    ],
    ids=["ja-desktop", "en-phone"],
)


@LANGS
def test_anniversaries_are_added_privately_or_shared_and_deleted_live(
    browser: Browser,
    base: str,
    site: Site,
    shoot: Shoot,
    locale: str,
    size: dict[str, int],
    words: dict[str, str],
) -> None:
    store = site.backend.store
    store.set_time_zone(HOME, "Asia/Tokyo")
    soon = store.today(HOME) + timedelta(days=10)
    began = soon.replace(year=soon.year - 6) if (soon.month, soon.day) != (2, 29) else soon.replace(day=28)
    with (
        opened(browser, base, locale=locale, viewport=size) as wife,
        opened(browser, base, locale=locale) as husband,
    ):
        sign_in(wife)
        sign_in(husband, "husband")
        for page in (wife, husband):
            page.get_by_role("button", name=words["tab"]).click()
            expect(page.locator("#panel-title")).to_have_text(words["tab"])
        mark_page(wife)
        mark_page(husband)
        panel = wife.locator("#panel-content")
        panel.locator("input[name=title]").fill("結婚記念日")
        panel.locator("input[name=date]").fill(began.isoformat())
        panel.get_by_role("button", name=words["add"]).click()
        shared = panel.locator("li.row", has_text="結婚記念日")
        expect(shared).to_contain_text(words["in"].format(n=10))
        if locale == "ja-JP":
            expect(shared).to_contain_text(f"{ja_day(soon)}")
            expect(shared).to_contain_text("6年目")
        expect(husband.locator("#panel-content li.row", has_text="結婚記念日")).to_be_visible()  # live

        panel.locator("input[name=title]").fill("夫の誕生日")
        panel.locator("input[name=date]").fill("1990-03-03")
        panel.get_by_label(words["private"]).check()
        panel.get_by_role("button", name=words["add"]).click()
        expect(panel.locator("li.row", has_text="夫の誕生日")).to_contain_text(words["private"])
        shoot(wife, f"anniversaries-{locale}", full_page=False)
        expect(husband.locator("#panel-content li.row")).to_have_count(1)  # the surprise stays hers
        husband.reload()
        expect(husband.locator("#panel-content li.row")).to_have_count(1)

        husband.locator("#panel-content li.row", has_text="結婚記念日").get_by_role(
            "button", name=words["delete"]
        ).click()
        expect(panel.locator("li.row")).to_have_count(1)
        assert [a.title for a in AnniversaryStore(store.database).visible(HOME, "wife")] == ["夫の誕生日"]
        assert same_document(wife)
        assert site.backend.butler.proposals.list(household=HOME) == []  # one's own actions: no cards


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_a_bad_date_is_refused_in_the_pages_language_and_nothing_is_lost(
    browser: Browser, base: str, site: Site, locale: str
) -> None:
    with opened(browser, base, locale=locale) as page:
        sign_in(page)
        page.locator("[data-panel=anniversaries]").click()
        panel = page.locator("#panel-content")
        panel.locator("input[name=title]").fill("記念日")
        panel.locator("input[name=date]").evaluate("e => { e.type = 'text'; e.value = '0000-13-40'; }")
        panel.locator("form.adder button[type=submit]").click()
        problem = "入力を確認してください" if locale == "ja-JP" else "Please check what you entered"
        expect(panel.locator(".panel-problem")).to_contain_text(problem)
        assert AnniversaryStore(site.backend.store.database).visible(HOME, "wife") == []


def test_the_todo_field_keeps_room_for_a_phrase_at_1280(page: Page) -> None:
    sign_in(page)
    page.locator("[data-panel=todos]").click()
    field = page.locator("#panel-content input[name=title]")
    box = field.bounding_box()
    assert box is not None and box["width"] >= 140, box  # about nine characters at least


@LANGS
def test_a_recipe_is_saved_from_the_panel_and_deleted_live(
    browser: Browser,
    base: str,
    site: Site,
    shoot: Shoot,
    locale: str,
    size: dict[str, int],
    words: dict[str, str],
) -> None:
    tab = "レシピ" if locale == "ja-JP" else "Recipes"
    with (
        opened(browser, base, locale=locale, viewport=size) as wife,
        opened(browser, base, locale=locale) as husband,
    ):
        sign_in(wife)
        sign_in(husband, "husband")
        for page in (wife, husband):
            page.get_by_role("button", name=tab, exact=True).click()
            expect(page.locator("#panel-title")).to_have_text(tab)
        panel = wife.locator("#panel-content")
        panel.locator("input[name=name]").fill("オムレツ")
        panel.locator("input[name=ingredients]").fill("卵 3個、玉ねぎ 1/4個")
        panel.locator("input[name=tags]").fill("朝")
        panel.get_by_role("button", name=words["add"]).click()
        row = panel.locator("li.row", has_text="オムレツ")
        expect(row).to_contain_text("卵 3個")
        expect(row).to_contain_text("#朝")
        theirs = husband.locator("#panel-content li.row", has_text="オムレツ")
        expect(theirs).to_be_visible()  # live
        shoot(wife, f"recipes-{locale}", full_page=False)
        theirs.get_by_role("button", name=words["delete"]).click()
        expect(panel.locator("li.row")).to_have_count(0)
        assert RecipeStore(site.backend.store.database).recipes(HOME) == []


@pytest.mark.parametrize(
    ("locale", "chat", "fact"),
    [("ja-JP", "執事へのメッセージ", "記憶の内容"), ("en-US", "Message to the butler", "What is remembered")],
)
def test_the_chat_box_and_a_memorys_edit_box_have_names(
    browser: Browser, base: str, site: Site, locale: str, chat: str, fact: str
) -> None:
    kept = site.backend.memory.remember(
        "妻は紅茶が好き", f"household/{HOME}/user/wife", category="preference"
    )
    with opened(browser, base, locale=locale) as page:
        sign_in(page)
        expect(page.get_by_role("textbox", name=chat, exact=True)).to_be_visible()
        page.goto(f"/memories/{kept.memory.id}")
        expect(page.get_by_role("textbox", name=fact, exact=True)).to_have_value("妻は紅茶が好き")


@pytest.mark.parametrize(
    ("locale", "added", "signed_in", "where"),
    [
        ("ja-JP", "ToDo「ゴミ出し」を追加", "ログインしました", "アプリ"),
        ("en-US", "Added the to-do “ゴミ出し”", "Signed in", "the app"),
    ],
)
def test_activity_reads_as_sentences_naming_the_item(
    browser: Browser, base: str, site: Site, locale: str, added: str, signed_in: str, where: str
) -> None:
    with opened(browser, base, locale=locale) as wife, opened(browser, base, locale=locale) as husband:
        sign_in(wife)
        sign_in(husband, "husband")
        wife.locator("[data-panel=todos]").click()
        panel = wife.locator("#panel-content")
        panel.locator("input[name=title]").fill("ゴミ出し")
        panel.locator("form.adder button[type=submit]").click()
        expect(panel.locator("li.row", has_text="ゴミ出し")).to_be_visible()
        wife.locator("[data-panel=anniversaries]").click()
        expect(panel.locator("input[name=date]")).to_be_visible()  # the panel's own form has loaded
        panel.locator("input[name=title]").fill("夫の誕生日")
        panel.locator("input[name=date]").fill("1990-03-03")
        panel.locator("input[name=private]").check()
        panel.locator("form.adder button[type=submit]").click()
        expect(panel.locator("li.row", has_text="夫の誕生日")).to_be_visible()
        panel.locator("li.row", has_text="夫の誕生日").locator("button.icon").click()  # deleted: still named
        expect(panel.locator("li.row")).to_have_count(0)
        wife.goto("/activity")
        table = wife.locator("table.activity")
        expect(table).to_contain_text(added)
        expect(table).to_contain_text(signed_in)
        expect(table).to_contain_text(where)
        expect(table).to_contain_text("夫の誕生日")  # her own private row, named after deletion
        for code in ("signin.ok", "panel.add_todo", "tool.ran"):
            expect(table).not_to_contain_text(code)
        assert table.locator("td", has_text=re.compile(r"^(app|cli)$")).count() == 0
        husband.goto("/activity")
        expect(husband.locator("table.activity")).to_contain_text("ゴミ出し")
        expect(husband.locator("table.activity")).not_to_contain_text("夫の誕生日")  # her surprise stays hers


@pytest.mark.parametrize(
    ("locale", "size", "said"),
    [
        ("ja-JP", DESKTOP, "husband さんが 3,000円 多く払っています"),
        ("en-US", PHONE, "husband paid ¥3,000 more"),
    ],
    ids=["ja-desktop", "en-phone"],
)
def test_the_budget_shows_the_settlement_and_the_months_as_an_svg_chart(
    browser: Browser, base: str, site: Site, shoot: Shoot, locale: str, size: dict[str, int], said: str
) -> None:
    store = site.backend.store
    store.set_time_zone(HOME, "Asia/Tokyo")
    today = store.today(HOME)
    store.add_expense(HOME, 6_000, "外食", day=today.replace(day=1), by="husband")
    with opened(browser, base, locale=locale, viewport=size) as page:
        sign_in(page)
        page.locator("[data-panel=budget]").click()
        panel = page.locator("#panel-content")
        expect(panel.locator("[data-settlement]")).to_contain_text(said)
        chart = panel.locator("svg.trend")
        expect(chart.locator("rect")).to_have_count(6)
        expect(chart.locator("rect.now")).to_have_count(1)
        assert chart.get_attribute("role") == "img" and chart.get_attribute("aria-label")
        shoot(page, f"budget-chart-{locale}", full_page=False)
        assert all(
            not src.startswith("http")
            for src in page.eval_on_selector_all("script[src]", "s => s.map(x => x.getAttribute('src'))")
        )
