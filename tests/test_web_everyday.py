"""The household app for everyday use, in a real browser (chromium in Asia/Tokyo, the server in UTC):
times that agree, a chat that scrolls in its own column, one language per page, retries stored
once, panels acted on directly and live for the spouse, settings, invitations.

Japanese and English, at 1280×800 and 390×844. Screenshots as in ``test_web_browser``.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from shitsuji.household import Butler
from shitsuji.llm import text_response, tool_use_response
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database
from shitsuji.web import Backend, create_app

from .browser_support import DESKTOP, PHONE, Shoot, ja_day, mark_page, opened, same_document, send, sign_in
from .fake_anthropic import FakeMessagesAPI
from .web_support import HOME, Site, serving

TOKYO = ZoneInfo("Asia/Tokyo")
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is inside the viewport, top to bottom."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None, selector
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 1


def tokyo(stamp: str) -> str:
    moment = datetime.fromisoformat(stamp).astimezone(TOKYO)
    return f"{ja_day(moment.date())} {moment:%H:%M}"


# -- times agree -------------------------------------------------------------------------


def test_a_streamed_card_and_the_same_card_after_a_reload_show_the_households_time(
    page: Page, site: Site, api: FakeMessagesAPI, shoot: Shoot
) -> None:
    site.backend.store.set_time_zone(HOME, "Asia/Tokyo")  # the server runs in UTC
    sign_in(page)
    api.reply(text_response("task"))
    api.reply(tool_use_response(("toolu_1", "add_event", {"title": "歯医者", "start": "2026-12-03T10:00"})))
    send(page, "3日の10時に歯医者")
    card = page.locator("article.proposal")
    expect(card.locator(".title")).to_have_text("予定「歯医者」(12月3日(木) 10:00)を追加")
    expect(page.locator(".msg .tools")).to_have_text("⚙ 予定の追加")  # words, not the tool's name
    [proposal] = site.backend.butler.proposals.list(household=HOME)
    streamed = card.locator(".expiry time").inner_text()
    assert streamed == tokyo(proposal.expires_at.isoformat())  # Tokyo, not the server's UTC
    card.get_by_role("button", name="承認").click()
    expect(card.locator(".status")).to_have_text("承認済み")
    decided = card.locator(".decided").inner_text()
    page.reload()
    again = page.locator("article.proposal")
    expect(again.locator(".decided")).to_have_text(decided)
    expect(page.locator(".msg .tools")).to_have_text("⚙ 予定の追加")
    [proposal] = site.backend.butler.proposals.list(household=HOME)
    assert proposal.decided_at is not None
    assert decided == f"判断: wife · {tokyo(proposal.decided_at.isoformat())}"
    expect(again.locator(".result")).to_have_text("予定「歯医者」を追加しました。")
    expect(again.locator("footer")).not_to_contain_text("added event")  # the tool's words: under details
    shoot(page, "card-tokyo", full_page=False)


def test_an_english_page_shows_cards_in_english_and_a_japanese_page_in_japanese(
    browser: Browser, base: str, site: Site, api: FakeMessagesAPI
) -> None:
    with opened(browser, base, locale="en-US") as page:
        sign_in(page)
        api.reply(text_response("task"))
        api.reply(tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳", "quantity": 2})))
        send(page, "milk, two")
        card = page.locator("article.proposal")
        expect(card.locator(".title")).to_have_text("Add “牛乳 ×2” to the shopping list")
        expect(card.locator(".fields")).to_have_text("Item牛乳Qty2")
        card.get_by_role("button", name="Approve").click()
        expect(card.locator(".result")).to_have_text("Added “牛乳 ×2” to the shopping list.")
        page.locator(".langs a[hreflang=ja]").click()
        expect(page.locator("article.proposal .result")).to_have_text(
            "買い物リストに「牛乳 ×2」を追加しました。"
        )
        [proposal] = site.backend.butler.proposals.list(household=HOME)
        page.evaluate(  # a second approval from a stale page: refused, and said in Japanese
            """id => fetch('/api/proposals/' + id + '/approve', {method: 'POST',
                 headers: {'X-CSRF-Token': document.body.dataset.csrf}}).then(r => r.json())
                 .then(d => { window.__why = d.reason_text; })""",
            proposal.id,
        )
        page.wait_for_function("window.__why !== undefined")
        assert page.evaluate("window.__why").startswith("すでに承認済みです(wife、")


# -- the chat scrolls in its own column ------------------------------------------------------


@SIZES
def test_a_long_chat_scrolls_in_its_column_while_the_header_and_panel_stay_in_view(
    browser: Browser, base: str, site: Site, api: FakeMessagesAPI, size: dict[str, int], shoot: Shoot
) -> None:
    with opened(browser, base, viewport=size) as page:
        sign_in(page)
        page.locator("[data-panel=shopping]").click()
        expect(page.locator("#panel")).to_be_visible()
        for n in range(6):
            api.reply(text_response("chat"))
            api.reply(text_response(f"{n}番目のお返事です。" + "今日もよい一日になりますように。" * 4))
            send(page, f"{n}番目のメッセージ")
            expect(page.locator(".msg.assistant .bubble")).to_have_count(n + 1)
        scrolled = page.evaluate(
            "() => { const m = document.getElementById('messages');"
            " return [m.scrollHeight > m.clientHeight, Math.round(window.scrollY), m.scrollTop > 0]; }"
        )
        assert scrolled == [True, 0, True]  # the messages scroll, the page does not
        for selector in ("header.top nav", "[data-panel=todos]", "#panel-title", "#composer textarea"):
            assert in_view(page, selector), selector
        site.backend.store.add_shopping_item(HOME, "卵", by="husband")  # a live update, in sight
        expect(page.locator("#panel-content .rows li")).to_contain_text(["卵"])
        assert in_view(page, "#panel-content .rows li")
        page.locator("[data-panel=todos]").click()  # the switcher is reachable on a phone too
        expect(page.locator("#panel-title")).to_have_text("ToDo")
        if size == PHONE:
            shoot(page, "long-chat", full_page=False)


# -- one language per page; the switch keeps where you were -----------------------------------


def test_the_language_switch_keeps_the_query_string(page: Page, site: Site) -> None:
    site.backend.memory.remember(
        "紅茶はミルクティーが好き", f"household/{HOME}/user/wife", category="preference"
    )
    sign_in(page)
    page.goto("/memories?q=紅茶&scope=own")
    page.locator(".langs a[hreflang=en]").click()
    expect(page).to_have_url(re.compile(r"/memories\?q=%E7%B4%85%E8%8C%B6&scope=own$"))
    expect(page.locator("input[name=q]")).to_have_value("紅茶")
    expect(page.locator("h1")).to_have_text("Memories")


# -- a failed message stays in the box and is stored once ---------------------------------------


def test_after_a_dead_model_the_words_stay_in_the_box_and_a_retry_stores_them_once(
    page: Page, site: Site, api: FakeMessagesAPI
) -> None:
    sign_in(page)
    api.fail(529, "overloaded_error", "Overloaded", times=2)  # the router, then the reply
    send(page, "明日の予定は?")
    expect(page.locator(".msg.error .bubble")).to_contain_text("モデルに届きませんでした")
    box = page.locator("#composer textarea")
    expect(box).to_have_value("明日の予定は?")
    api.reply(text_response("chat"))
    api.reply(text_response("明日は何もありません。"))
    box.press("Enter")
    expect(page.locator(".msg.assistant .bubble")).to_have_text("明日は何もありません。")
    expect(box).to_have_value("")
    expect(page.locator(".msg.user")).to_have_count(1)
    page.reload()
    expect(page.locator(".msg.user .bubble")).to_have_text(["明日の予定は?"])  # stored once


# -- first run: labels that say what is accepted, errors in the page's language ----------------


def test_setup_says_what_it_accepts_and_refuses_in_japanese(browser: Browser, tmp_path: Path) -> None:
    db = tmp_path / "first.db"
    memory = MemoryEngine(open_store(db), HashEmbedder())
    backend = Backend(Butler(database(db), memory, None, panels=True))
    try:
        with serving(create_app(backend)) as url, opened(browser, url) as page:
            page.goto("/setup")
            expect(page.locator("input[name=household]")).to_have_attribute("maxlength", "40")
            expect(page.locator("label").first).to_contain_text("40文字まで")
            expect(page.locator("select[name=time_zone]")).to_have_value("Asia/Tokyo")  # the browser's zone
            page.locator("input[name=household]").fill("山田家")
            page.locator("input[name=user]").fill("はな こ")
            page.locator("input[name=password]").fill("sakura-2026-haru")
            page.locator("input[name=password2]").fill("sakura-2026-haru")
            page.get_by_role("button", name="作成してはじめる").click()
            expect(page.locator("[role=alert]")).to_have_text(
                "ユーザー名「はな こ」は使えません。空白と「/」を含まない40文字までにしてください。"
            )
            expect(page.locator("[role=alert]")).not_to_contain_text("not valid")
            page.locator("input[name=user]").fill("はなこ")
            page.locator("input[name=password]").fill("sakura-2026-haru")
            page.locator("input[name=password2]").fill("sakura-2026-haru")
            page.get_by_role("button", name="作成してはじめる").click()
            expect(page.locator(".who .me")).to_have_text("はなこ @ 山田家")
            assert backend.store.get("山田家").time_zone == "Asia/Tokyo"
    finally:
        backend.close()
        memory.store.close()


# -- panels: acted on directly, live on the spouse's page ---------------------------------------


@pytest.mark.parametrize(
    ("locale", "size", "words"),
    [
        ("ja-JP", DESKTOP, {"add": "追加", "tick": "買った", "untick": "まだ買っていない", "delete": "削除"}),
        ("en-US", PHONE, {"add": "Add", "tick": "Bought", "untick": "Not bought yet", "delete": "Delete"}),
    ],
    ids=["ja-desktop", "en-phone"],
)
def test_a_spouse_ticks_off_undoes_and_deletes_and_the_other_sees_it_live(
    browser: Browser,
    base: str,
    site: Site,
    shoot: Shoot,
    locale: str,
    size: dict[str, int],
    words: dict[str, str],
) -> None:
    with (
        opened(browser, base, locale=locale, viewport=size) as wife,
        opened(browser, base, locale=locale) as husband,
    ):
        sign_in(wife)
        sign_in(husband, "husband")
        for page in (wife, husband):
            page.locator("[data-panel=shopping]").click()
            expect(page.locator("#panel")).to_be_visible()
        mark_page(wife)
        mark_page(husband)
        panel = wife.locator("#panel-content")
        panel.locator("input[name=name]").fill("卵")
        panel.get_by_role("button", name=words["add"]).click()
        row = panel.locator("li.row", has_text="卵")
        expect(row).to_be_visible()
        theirs = husband.locator("#panel-content li.row", has_text="卵")
        expect(theirs).to_be_visible()  # live, through /api/events

        row.get_by_role("button", name=words["tick"]).click()
        expect(panel.locator("li.row.done", has_text="卵")).to_be_visible()
        expect(husband.locator("#panel-content li.row.done", has_text="卵")).to_be_visible()
        [item] = site.backend.store.shopping_items(HOME)
        assert item.checked_by == "wife"
        shoot(wife, f"shopping-ticked-{locale}", full_page=False)

        panel.locator("li.row", has_text="卵").get_by_role("button", name=words["untick"]).click()
        expect(husband.locator("#panel-content li.row:not(.done)", has_text="卵")).to_be_visible()
        husband.locator("#panel-content li.row", has_text="卵").get_by_role(
            "button", name=words["delete"]
        ).click()
        expect(panel.locator("li.row")).to_have_count(0)
        assert site.backend.store.shopping_items(HOME) == []
        assert same_document(wife) and same_document(husband)  # no reloads anywhere
        assert site.backend.butler.proposals.list(household=HOME) == []  # no cards for one's own actions


def test_todos_complete_and_reopen_events_are_added_and_deleted_and_the_budget_changes_month(
    page: Page, site: Site, shoot: Shoot
) -> None:
    site.backend.store.set_time_zone(HOME, "Asia/Tokyo")
    store = site.backend.store
    today = store.today(HOME)
    store.add_expense(HOME, 3000, "外食", day=today.replace(day=1) if today.day > 1 else today, by="wife")
    sign_in(page)
    page.locator("[data-panel=todos]").click()
    panel = page.locator("#panel-content")
    panel.locator("input[name=title]").fill("ゴミ出し")
    panel.get_by_role("button", name="追加").click()
    todo = panel.locator("li.row", has_text="ゴミ出し")
    todo.get_by_role("button", name="完了にする").click()
    expect(panel.locator("li.row.done", has_text="ゴミ出し")).to_contain_text("wife が完了")
    assert store.todos(HOME) == []
    panel.locator("li.row", has_text="ゴミ出し").get_by_role("button", name="未完了に戻す").click()
    expect(panel.locator("li.row:not(.done)", has_text="ゴミ出し")).to_be_visible()
    assert [t.title for t in store.todos(HOME)] == ["ゴミ出し"]

    page.locator("[data-panel=calendar]").click()
    expect(page.locator("#panel-title")).to_have_text("予定")
    expect(panel.locator("input[name=start]")).to_be_visible()  # the calendar's form, not the to-dos' still
    panel.locator("input[name=title]").fill("歯医者")
    panel.locator("input[name=start]").fill(f"{today.isoformat()}T23:30")
    panel.get_by_role("button", name="追加").click()
    event = panel.locator("li.row", has_text="歯医者")
    expect(event).to_contain_text(f"{ja_day(today)} 23:30")  # the household's today, not UTC's
    event.get_by_role("button", name="削除").click()
    expect(panel.locator("li.row")).to_have_count(0)

    page.locator("[data-panel=budget]").click()
    expect(panel.locator(".total")).to_contain_text(f"{today.year}年{today.month}月の合計 3,000円")
    panel.locator("a[rel=prev]").click()
    expect(panel.locator(".total")).not_to_contain_text(f"{today.month}月の合計 3,000円")
    expect(panel.locator(".total")).to_contain_text("0円")
    shoot(page, "budget-previous-month", full_page=False)
    panel.locator("a[rel=next]").click()
    expect(panel.locator(".total")).to_contain_text("3,000円")


# -- settings: invitations, passwords, time zone ------------------------------------------------


def test_a_member_invites_the_other_who_joins_with_their_own_password(
    browser: Browser, base: str, site: Site, shoot: Shoot
) -> None:
    with opened(browser, base) as wife:
        sign_in(wife)
        wife.locator("header.top nav a[href='/settings']").click()
        expect(wife.locator("h1")).to_contain_text("設定")
        wife.locator("#members input[name=user]").fill("むすこ")
        wife.get_by_role("button", name="招待リンクを作る").click()
        link = wife.locator(".link-once input").input_value()
        assert "/join/" in link
        shoot(wife, "settings-link")
        wife.goto("/settings")
        expect(wife.locator(".link-once")).to_have_count(0)  # shown once
    with opened(browser, base, viewport=PHONE) as son:
        son.goto(link)
        expect(son.locator("h1")).to_have_text("世帯に参加")
        expect(son.locator("main")).to_contain_text(f"{HOME} に むすこ として参加します")
        son.locator("input[name=password]").fill("musuko-no-pass")
        son.locator("input[name=password2]").fill("musuko-no-pass")
        son.get_by_role("button", name="世帯に参加").click()
        expect(son.locator(".who .me")).to_have_text(f"むすこ @ {HOME}")
        son.goto(link)  # used up
        expect(son.locator("[role=alert]")).to_contain_text("このリンクは使えません")
    assert site.backend.accounts.verify(HOME, "むすこ", "musuko-no-pass")


def test_changing_the_password_and_the_time_zone_from_settings(page: Page, site: Site) -> None:
    sign_in(page)
    page.goto("/settings")
    page.locator("#time-zone select").select_option("Europe/London")
    page.locator("#time-zone").get_by_role("button", name="保存").click()
    expect(page.locator("[role=status]")).to_have_text("保存しました。")
    assert site.backend.store.get(HOME).time_zone == "Europe/London"
    form = page.locator("#password")
    form.locator("input[name=current]").fill("wrong password")
    form.locator("input[name=password]").fill("brand-new-pass")
    form.locator("input[name=password2]").fill("brand-new-pass")
    form.get_by_role("button", name="保存").click()
    expect(page.locator("[role=alert]")).to_have_text("いまのパスワードが違います。")
    form = page.locator("#password")
    form.locator("input[name=current]").fill("correct horse 馬")
    form.locator("input[name=password]").fill("brand-new-pass")
    form.locator("input[name=password2]").fill("brand-new-pass")
    form.get_by_role("button", name="保存").click()
    expect(page.locator("[role=status]")).to_contain_text("パスワードを変更しました")
    page.goto("/")  # still signed in here
    expect(page.locator(".who .me")).to_contain_text("wife")
    assert site.backend.accounts.verify(HOME, "wife", "brand-new-pass")
