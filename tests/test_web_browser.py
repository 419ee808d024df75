"""The web app in a real browser (Debian's headless chromium driven by Playwright) against a real
uvicorn server on loopback, with the real Anthropic SDK talking to the local fake Messages API.

Each test asserts on what a person sees. Screenshots of the main pages (desktop 1280×800 and
phone 390×844) go to the test's tmp_path, and also to ``$SHITSUJI_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import text_response, tool_use_response
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database
from shitsuji.web import Backend, create_app

from .browser_support import Shoot, ja_day, mark_page, opened, same_document, send, sign_in
from .fake_anthropic import FakeMessagesAPI
from .web_support import HOME, Site, serving

WIFE = f"household/{HOME}/user/wife"
HUSBAND = f"household/{HOME}/user/husband"
SHARED = f"household/{HOME}"
# long enough to stream in several pieces past the output sanitizer, which holds 40 characters back
REPLY = (
    "牛乳を2本、追加しますね。"
    + "いつもの低脂肪のもので、近所のスーパーの特売日に合わせて買っておきます。" * 6
)


# -- (a) signed out ---------------------------------------------------------


def test_a_signed_out_visitor_is_sent_to_sign_in_and_the_api_says_401(page: Page, shoot: Shoot) -> None:
    for path in ("/", "/memories", "/proposals", "/panels/shopping"):
        page.goto(path)
        expect(page).to_have_url(re.compile(r"/login$"))
    expect(page.locator("h1")).to_have_text("ログイン")
    expect(page.locator("header.top nav")).to_have_count(0)  # no app navigation before signing in
    for path in ("/api/me", "/api/memories", "/api/conversation", "/api/panels/shopping"):
        response = page.goto(path)
        assert response is not None and response.status == 401, path
        assert "sign in" in page.locator("body").inner_text()
    page.goto("/login")
    page.locator("select[name=household]").select_option(HOME)
    page.locator("input[name=user]").fill("wife")
    page.locator("input[name=password]").fill("not the password")
    page.locator("form[action='/login'] button[type=submit]").click()
    expect(page.locator("[role=alert]")).to_have_text("ユーザー名かパスワードが違います。")
    expect(page).to_have_url(re.compile(r"/login$"))
    shoot(page, "login")


# -- (b) chat, card, reload, approve, live panel ----------------------------


def test_b_chat_streams_a_card_that_survives_reload_and_approval_updates_the_open_panel(
    page: Page, site: Site, api: FakeMessagesAPI, shoot: Shoot
) -> None:
    sign_in(page)
    expect(page.locator(".messages .hint")).to_be_visible()

    page.locator("[data-panel=shopping]").click()  # open the shopping panel first (no reload)
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#panel-title")).to_have_text("買い物")
    expect(page.locator("#panel-content")).to_contain_text("まだありません。")

    api.reply(text_response("task"))  # the router
    api.reply(
        tool_use_response(
            ("toolu_1", "add_shopping_item", {"name": "牛乳", "quantity": 2}),
            text=REPLY,
        )
    )
    mark_page(page)
    # every text the reply bubble held, in order (each piece appended replaces its text node, so the
    # records keep the partial texts however the stream's chunks happened to arrive)
    page.evaluate(
        """() => {
          window.__seen = [];
          new MutationObserver((records) => {
            for (const r of records) {
              if (!(r.target instanceof Element) || !r.target.matches('.msg.assistant .bubble')) continue;
              for (const n of r.addedNodes) if (n.nodeType === Node.TEXT_NODE) window.__seen.push(n.data);
            }
          }).observe(document.getElementById('messages'), {subtree: true, childList: true});
        }"""
    )
    send(page, "牛乳を2本買っておいて")
    expect(page.locator(".msg.user .bubble")).to_have_text("牛乳を2本買っておいて")
    reply = page.locator(".msg.assistant .bubble")
    expect(reply).to_have_text(REPLY)
    seen: list[str] = page.evaluate("window.__seen")  # it streamed in, piece by piece
    assert len(seen) >= 3 and seen[-1] == REPLY, seen
    assert all(a and b.startswith(a) and len(a) < len(b) for a, b in itertools.pairwise(seen)), seen

    card = page.locator("article.proposal")
    expect(card).to_have_count(1)
    expect(card.locator("header strong")).to_have_text("買い物リストに「牛乳 ×2」を追加")
    expect(card.locator(".fields")).to_have_text("品目牛乳数量2")  # what matters, in plain words
    expect(card.locator("details.args pre").first).to_be_hidden()  # the tool and its JSON, one click away
    card.locator("summary").click()
    expect(card.locator("details.args code").first).to_have_text("add_shopping_item")
    expect(card.locator("pre")).to_contain_text('"name": "牛乳"')
    expect(card.locator("pre")).to_contain_text('"quantity": 2')
    expiry = card.locator("footer .expiry")
    expect(expiry).to_have_text(re.compile(r"^期限 \d+月\d+日\(.\) \d\d:\d\d$"))
    streamed_expiry = expiry.inner_text()
    expect(card.get_by_role("button", name="承認")).to_be_enabled()
    assert same_document(page)
    proposal_id = card.get_attribute("data-proposal")
    assert proposal_id and proposal_id.startswith("p_")
    assert site.backend.store.shopping_items(HOME) == []  # nothing is written before the OK
    shoot(page, "chat", full_page=False)

    page.reload()  # the conversation, the card and the open panel all come back from the server
    assert not same_document(page)
    expect(page.locator(".msg.user .bubble")).to_have_text("牛乳を2本買っておいて")
    expect(page.locator(".msg.assistant .bubble")).to_have_text(REPLY)
    card = page.locator(f"article.proposal[data-proposal='{proposal_id}']")
    expect(card).to_have_class(re.compile(r"\bstate-pending\b"))
    expect(card.locator("header strong")).to_have_text("買い物リストに「牛乳 ×2」を追加")
    expect(card.locator("footer .expiry")).to_have_text(
        streamed_expiry
    )  # app.js writes dates as the server does
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#panel-title")).to_have_text("買い物")
    expect(page.locator("#panel-content")).to_contain_text("まだありません。")

    page.goto("/proposals")
    expect(page.locator("section.group").first.locator("article.proposal")).to_have_count(1)
    shoot(page, "proposals")
    page.goto("/")

    mark_page(page)
    page.locator(f"article[data-proposal='{proposal_id}']").get_by_role("button", name="承認").click()
    card = page.locator(f"article.proposal[data-proposal='{proposal_id}']")
    expect(card).to_have_class(re.compile(r"\bstate-approved\b"))
    expect(card.locator(".status")).to_have_text("承認済み")
    expect(card.locator("footer")).to_contain_text("判断: wife")
    expect(card.locator(".result")).to_contain_text("牛乳")
    expect(card.get_by_role("button")).to_have_count(0)
    # the panel picks the new item up from the events stream, without a reload
    rows = page.locator("#panel-content .rows li")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("牛乳")
    expect(rows.first).to_contain_text("×2")
    assert same_document(page)
    [item] = site.backend.store.shopping_items(HOME)
    assert (item.name, item.quantity, item.added_by) == ("牛乳", 2, "wife")
    shoot(page, "chat-approved", full_page=False)


def test_b2_a_change_made_elsewhere_reaches_the_open_panel_live(page: Page, site: Site) -> None:
    sign_in(page, "husband")
    page.locator("[data-panel=shopping]").click()
    expect(page.locator("#panel-content")).to_contain_text("まだありません。")
    mark_page(page)
    elsewhere = HouseholdStore(database(site.db))  # e.g. the LINE bot: another process, its own connection
    try:
        elsewhere.add_shopping_item(HOME, "卵", 1, by="wife")
    finally:
        elsewhere.close()
    expect(page.locator("#panel-content .rows li")).to_contain_text(["卵"])
    assert same_document(page)


def test_b3_a_live_refresh_keeps_what_is_being_typed_in_the_panel(page: Page, site: Site) -> None:
    sign_in(page, "husband")
    page.locator("[data-panel=shopping]").click()
    expect(page.locator("#panel-content")).to_contain_text("まだありません。")
    name = page.locator("#panel-content form.adder input[name=name]")
    name.fill("ヨーグルト")
    page.locator("#panel-content form.adder input[name=quantity]").fill("3")
    name.focus()
    elsewhere = HouseholdStore(database(site.db))  # the spouse adds something while he types
    try:
        elsewhere.add_shopping_item(HOME, "卵", 1, by="wife")
    finally:
        elsewhere.close()
    expect(page.locator("#panel-content .rows li")).to_contain_text(["卵"])  # the panel was redrawn
    expect(name).to_have_value("ヨーグルト")
    expect(page.locator("#panel-content form.adder input[name=quantity]")).to_have_value("3")
    expect(name).to_be_focused()
    page.locator("#panel-content form.adder button[type=submit]").click()  # and it still adds
    expect(page.locator("#panel-content .rows li")).to_have_count(2)
    assert {i.name: i.quantity for i in site.backend.store.shopping_items(HOME)} == {"卵": 1, "ヨーグルト": 3}


# -- (c) the assistant opens a panel ----------------------------------------


def test_c_the_assistant_opens_a_panel_with_the_open_panel_tool(
    page: Page, site: Site, api: FakeMessagesAPI
) -> None:
    site.backend.store.add_todo(HOME, "ゴミ出し", by="husband")
    sign_in(page)
    expect(page.locator("#panel")).to_be_hidden()
    api.reply(text_response("task"))
    api.reply(tool_use_response(("toolu_1", "open_panel", {"name": "todos"})))
    api.reply(text_response("ToDo を開きました。"))
    mark_page(page)
    send(page, "ToDo を見せて")
    expect(page.locator(".msg.assistant .bubble")).to_have_text("ToDo を開きました。")
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#panel-title")).to_have_text("ToDo")
    expect(page.locator("#panel-content")).to_contain_text("ゴミ出し")
    expect(page.locator("[data-panel=todos]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-panel=shopping]")).to_have_attribute("aria-pressed", "false")
    assert same_document(page)
    expect(page.locator("article.proposal")).to_have_count(0)  # a panel needs no confirmation
    page.reload()
    expect(page.locator("#panel-title")).to_have_text("ToDo")  # the panel stays open for this conversation
    page.locator("[data-panel-close]").click()
    expect(page.locator("#panel")).to_be_hidden()
    page.reload()
    expect(page.locator("#panel")).to_be_hidden()


# -- (d) memories -----------------------------------------------------------


def seed_memories(site: Site) -> dict[str, str]:
    backend = site.backend
    talk = backend.butler.conversations.start(HOME, "wife", "app")
    said = backend.butler.conversations.add_said(talk, "わたし、コーヒーより紅茶派なの。")
    backend.butler.conversations.add_turn(
        said,
        [{"role": "assistant", "content": "覚えておきますね。"}],
        untrusted=False,
        summary="",
        folded_upto=0,
        summary_untrusted=False,
    )
    own = backend.memory.remember(
        "妻はコーヒーより紅茶が好き",
        WIFE,
        category="preference",
        importance=0.7,
        source="extracted",
        provenance={"channel": "app", "by": "wife", "conversation": talk.id, "message_ids": [f"{talk.id}:0"]},
    ).memory
    shared = backend.memory.remember("家族の誕生日は外食でお祝いする", SHARED, category="misc").memory
    secret = backend.memory.remember(
        "夫は結婚記念日のサプライズを計画中", HUSBAND, category="event", importance=0.9
    ).memory
    return {"own": own.id, "shared": shared.id, "secret": secret.id, "talk": talk.id}


def test_d_memories_list_search_edit_forget_restore_and_provenance(
    page: Page, site: Site, shoot: Shoot
) -> None:
    ids = seed_memories(site)
    sign_in(page)
    page.goto("/memories")
    rows = page.locator("li.memory")
    expect(rows).to_have_count(2)
    own = page.locator(f"li.memory[data-memory='{ids['own']}']")
    shared = page.locator(f"li.memory[data-memory='{ids['shared']}']")
    expect(own).to_contain_text("妻はコーヒーより紅茶が好き")
    expect(own.locator(".tag.shared")).to_have_count(0)
    expect(own.locator(".tag")).to_have_text("好み")  # categories in the reader's language
    expect(shared).to_contain_text("家族の誕生日は外食でお祝いする")
    expect(shared.locator(".tag.shared")).to_have_text("共有")
    expect(page.locator("main")).not_to_contain_text("サプライズ")  # the husband's own memory stays his
    shoot(page, "memories")

    page.locator("input[name=q]").fill("紅茶")
    page.locator("form.filters button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"q=%E7%B4%85%E8%8C%B6"))
    expect(page.locator("li.memory").first).to_contain_text("紅茶")
    expect(page.locator("input[name=q]")).to_have_value("紅茶")
    page.locator("input[name=q]").fill("サプライズ")
    page.locator("form.filters button[type=submit]").click()
    expect(page.locator("main")).not_to_contain_text("サプライズを計画中")
    page.locator("select[name=scope]").select_option("shared")
    page.locator("input[name=q]").fill("")
    page.locator("form.filters button[type=submit]").click()
    expect(page.locator("li.memory")).to_have_count(1)
    expect(page.locator("li.memory")).to_contain_text("家族の誕生日")

    response = page.goto(f"/memories/{ids['secret']}")  # not even by its id
    assert response is not None and response.status == 404
    expect(page.locator("[role=alert]")).to_contain_text("見つかりません")
    expect(page.locator("main")).not_to_contain_text("サプライズ")

    # why do you know this? the memory's origin, quoting the message it came from
    page.goto("/memories")
    page.locator(f"li.memory[data-memory='{ids['own']}'] a").click()
    expect(page).to_have_url(re.compile(f"/memories/{ids['own']}$"))
    expect(page.locator(".fact")).to_have_text("妻はコーヒーより紅茶が好き")
    why = page.locator("#why")
    expect(why.locator("h2")).to_have_text("なぜ知っているの?")
    expect(why).to_contain_text("会話から自動で記録 · アプリ · wife")
    expect(why).to_contain_text(ids["talk"])
    expect(why.locator("blockquote .said")).to_have_text("わたし、コーヒーより紅茶派なの。")
    expect(why.locator("blockquote")).to_contain_text("あなた")
    shoot(page, "memory")

    # edit: the new text replaces the old
    page.locator("textarea[name=content]").fill("妻は紅茶(特にダージリン)が好き")
    page.get_by_role("button", name="保存").click()
    expect(page.locator(".fact")).to_have_text("妻は紅茶(特にダージリン)が好き")
    edited = page.url.rsplit("/", 1)[-1]
    assert edited != ids["own"]
    expect(page.locator("#why")).to_contain_text(ids["own"])  # edited from the old version
    page.goto("/memories")
    expect(page.locator(f"li.memory[data-memory='{edited}']")).to_contain_text("ダージリン")
    expect(page.locator(f"li.memory[data-memory='{ids['own']}']")).to_have_count(0)

    # forget: gone from the list, shown under "show forgotten", and back on restore
    page.goto(f"/memories/{edited}")
    page.get_by_role("button", name="忘れる").click()
    expect(page.locator(".memory-detail")).to_have_class(re.compile(r"\bdeleted\b"))
    expect(page.locator(".memory-detail .tag").filter(has_text="忘れた記憶")).to_be_visible()
    page.goto("/memories")
    expect(page.locator("li.memory")).to_have_count(1)
    expect(page.locator("main")).not_to_contain_text("ダージリン")
    page.locator("input[name=deleted]").check()
    page.locator("form.filters button[type=submit]").click()
    forgotten = page.locator(f"li.memory.deleted[data-memory='{edited}']")
    expect(forgotten).to_contain_text("ダージリン")
    forgotten.locator("a").click()
    page.get_by_role("button", name="戻す").click()
    expect(page.locator(".memory-detail")).not_to_have_class(re.compile(r"\bdeleted\b"))
    page.goto("/memories")
    expect(page.locator(f"li.memory[data-memory='{edited}']")).to_contain_text("ダージリン")
    expect(page.locator("li.memory")).to_have_count(2)
    expect(page.locator("main")).not_to_contain_text("サプライズ")


# -- (e) language and Japanese formats -------------------------------------


def test_e_english_from_the_browser_japanese_from_the_switch_with_yen_and_dates(
    browser: Browser, base: str, site: Site, shoot: Shoot
) -> None:
    today = site.backend.store.today(HOME)
    site.backend.store.add_expense(HOME, 1280, "食費", "スーパー", today, by="wife")
    site.backend.store.add_expense(HOME, 25000, "光熱費", None, today, by="husband")
    with opened(browser, base, locale="en-US") as page:
        page.goto("/login")
        expect(page.locator("h1")).to_have_text("Sign in")
        expect(page.locator("html")).to_have_attribute("lang", "en")
        sign_in(page)
        expect(page.locator("header.top nav")).to_contain_text("Memories")
        expect(page.locator("#composer button[type=submit]")).to_have_text("Send")
        page.locator("[data-panel=budget]").click()
        expect(page.locator("#panel-title")).to_have_text("Budget")
        expect(page.locator("#panel-content .total")).to_have_text(f"Total for {today:%B %Y} ¥26,280")
        shoot(page, "budget-en", full_page=False)

        page.locator(".langs a[hreflang=ja]").click()
        expect(page.locator("html")).to_have_attribute("lang", "ja")
        expect(page.locator("header.top nav")).to_contain_text("記憶")
        expect(page.locator("#composer button[type=submit]")).to_have_text("送信")
        expect(page.locator("#panel-title")).to_have_text("家計")
        panel = page.locator("#panel-content")
        expect(panel.locator(".total")).to_have_text(f"{today.year}年{today.month}月の合計 26,280円")
        expect(panel).to_contain_text("25,000円")
        expect(panel).to_contain_text(f"{ja_day(today)} スーパー")
        expect(panel).not_to_contain_text("¥")
        shoot(page, "budget", full_page=False)
        page.goto("/memories")  # the choice sticks (cookie), whatever the browser asks for
        expect(page.locator("h1")).to_have_text("記憶")


# -- (f) first run ----------------------------------------------------------


def test_f_first_run_setup_creates_a_household_and_signs_in(
    browser: Browser, tmp_path: Path, shoot: Shoot
) -> None:
    db = tmp_path / "empty.db"
    memory = MemoryEngine(open_store(db), HashEmbedder())
    backend = Backend(Butler(database(db), memory, None, panels=True))
    try:
        with serving(create_app(backend)) as url, opened(browser, url) as page:
            page.goto("/")
            expect(page).to_have_url(re.compile(r"/setup$"))
            expect(page.locator("h1")).to_have_text("はじめに")
            form: dict[str, Any] = {
                "household": "ikka",
                "user": "haha",
                "others": "chichi、musume",
                "password": "sakura-2026-haru",
                "password2": "sakura-2026-natsu",
            }
            for name, value in form.items():
                page.locator(f"input[name={name}]").fill(value)
            page.get_by_role("button", name="作成してはじめる").click()
            expect(page.locator("[role=alert]")).to_have_text("パスワードが一致しません。")
            assert backend.store.households() == []
            expect(page.locator("input[name=household]")).to_have_value("ikka")
            shoot(page, "setup")
            for name in ("password", "password2"):
                page.locator(f"input[name={name}]").fill("sakura-2026-haru")
            page.get_by_role("button", name="作成してはじめる").click()
            expect(page).to_have_url(re.compile(r"/$"))
            expect(page.locator(".who .me")).to_have_text("haha @ ikka")
            [home] = backend.store.households()
            assert (home.name, list(home.members)) == ("ikka", ["haha", "chichi", "musume"])
            page.goto("/setup")  # only while there is no household
            expect(page).to_have_url(re.compile(r"/$"))
    finally:
        backend.close()
        memory.store.close()


def test_g_a_dead_model_is_explained_in_japanese_and_the_message_is_kept(
    page: Page, site: Site, api: FakeMessagesAPI
) -> None:
    sign_in(page)
    api.fail(529, "overloaded_error", "Overloaded", times=3)
    page.locator("#composer textarea").fill("明日の予定は?")
    page.locator("#composer button[type=submit]").click()
    problem = page.locator(".msg.error .bubble")
    expect(problem).to_contain_text("モデルに届きませんでした")
    expect(problem.locator(".detail small")).not_to_be_empty()  # the server's own words, folded away
    expect(problem.locator(".detail small")).to_be_hidden()
    assert re.search("[A-Za-z]", problem.inner_text()) is None  # no English line on a Japanese page
    page.reload()
    expect(page.locator(".msg.user .bubble").last).to_have_text("明日の予定は?")  # kept
