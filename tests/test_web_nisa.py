"""The NISA panel in a real browser: the member's own room this year and for life, holdings and this
year's purchases; every action is a card to approve (nothing is stored before), and the spouse never
sees a private purchase. Japanese on a desktop, English on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from shitsuji.household import NisaStore

from .browser_support import DESKTOP, PHONE, Shoot, opened, sign_in
from .web_support import HOME, Site

WORDS = {
    "ja-JP": {
        "tab": "NISA",
        "buy": "購入を記録",
        "value": "評価額を更新",
        "approve": "承認",
        "delete": "削除",
        "full": "1,200,000円",
        "after": "1,100,000円",
        "card": "NISA(つみたて投資枠)で「全世界株式」を 100,000円 購入として記録",
        "remove": "NISAの購入記録「全世界株式」を削除",
        "worth": "105,000円",
        "holding": "NISA「全世界株式」の評価額を 105,000円 に更新",
    },
    "en-US": {
        "tab": "NISA",
        "buy": "Record a purchase",
        "value": "Update a value",
        "approve": "Approve",
        "delete": "Delete",
        "full": "¥1,200,000",
        "after": "¥1,100,000",
        "card": "Record buying “全世界株式” for ¥100,000 in NISA (tsumitate frame)",
        "remove": "Remove the NISA purchase of “全世界株式”",
        "worth": "¥105,000",
        "holding": "Set the NISA holding “全世界株式” to ¥105,000",
    },
}


def approve(page: Page, title: str, button: str) -> None:
    """Approve the pending card titled ``title`` and wait until it says it ran."""
    card = page.locator("article.proposal.state-pending", has_text=title)
    expect(card.locator("header strong")).to_have_text(title)
    shown = page.locator(f"article.proposal[data-proposal='{card.get_attribute('data-proposal')}']")
    card.get_by_role("button", name=button).click()
    expect(shown).to_have_class(re.compile(r"\bstate-approved\b"))


@pytest.mark.parametrize(
    ("locale", "size"), [("ja-JP", DESKTOP), ("en-US", PHONE)], ids=["ja-desktop", "en-phone"]
)
def test_nisa_panel_actions_are_cards_and_the_room_follows_the_data(
    browser: Browser, base: str, site: Site, shoot: Shoot, locale: str, size: dict[str, int]
) -> None:
    w = WORDS[locale]
    nisa = NisaStore(site.backend.store.database)
    with (
        opened(browser, base, locale=locale, viewport=size) as wife,
        opened(browser, base, locale=locale) as husband,
    ):
        sign_in(wife)
        wife.get_by_role("button", name=w["tab"], exact=True).click()
        panel = wife.locator("#panel-content")
        expect(panel.locator("[data-frame=tsumitate] strong")).to_have_text(w["full"])
        panel.locator("input[name=fund]").first.fill("全世界株式")
        panel.locator("input[name=amount]").fill("100000")
        panel.get_by_role("button", name=w["buy"]).click()
        expect(wife.locator("article.proposal.state-pending header strong")).to_have_text(w["card"])
        assert nisa.contributions(HOME, "wife") == []  # nothing before the card is approved
        approve(wife, w["card"], w["approve"])
        wife.goto("/")  # the panel stays open beside the conversation
        panel = wife.locator("#panel-content")
        expect(panel.locator("[data-frame=tsumitate] strong")).to_have_text(w["after"])
        expect(panel.locator("li.row", has_text="全世界株式")).to_be_visible()
        wife.goto("/panels/nisa")  # the panel alone (no live refresh to empty a field being typed in)
        wife.locator("input[name=fund]").nth(1).fill("全世界株式")
        wife.locator("input[name=value]").fill("105000")
        wife.get_by_role("button", name=w["value"]).click()
        approve(wife, w["holding"], w["approve"])
        wife.goto("/")
        expect(wife.locator("#panel-content").get_by_text(w["worth"]).first).to_be_visible()
        shoot(wife, f"nisa-{locale}", full_page=False)

        sign_in(husband, "husband")
        husband.get_by_role("button", name=w["tab"], exact=True).click()
        theirs = husband.locator("#panel-content")
        expect(theirs.locator("[data-frame=tsumitate] strong")).to_have_text(w["full"])  # his own room
        expect(theirs).not_to_contain_text("全世界株式")  # her account is private

        wife.locator("#panel-content li.row", has_text="全世界株式").get_by_role(
            "button", name=w["delete"]
        ).click()
        expect(wife.locator("article.proposal.state-pending header strong")).to_have_text(w["remove"])
        assert len(nisa.contributions(HOME, "wife")) == 1  # still there until approved
        approve(wife, w["remove"], w["approve"])
        assert nisa.contributions(HOME, "wife") == []
