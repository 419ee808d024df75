"""Reminders in a real browser (Debian's chromium): the settings section saves a member's choices, and
a notification the scheduler adds appears on the open Notifications page without a reload."""

from __future__ import annotations

import asyncio
import threading

from playwright.sync_api import Browser, Page, expect

from shitsuji.schedule import SCHEDULE_SCHEMA, FakeClock, Scheduler
from shitsuji.store import open_database

from .browser_support import PHONE, Shoot, mark_page, opened, same_document, sign_in
from .web_support import HOME, Site


def _tick(scheduler: Scheduler) -> None:
    """One scheduler round in a thread of its own (Playwright's loop runs in this one), as another process would."""
    worker = threading.Thread(target=lambda: asyncio.run(scheduler.tick()))
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive()


def test_reminder_settings_and_a_live_notification(page: Page, site: Site, shoot: Shoot) -> None:
    sign_in(page, "wife")
    page.goto("/settings")
    section = page.locator("#reminders")
    expect(section.locator("h2")).to_have_text("リマインダーと朝のまとめ")
    section.get_by_label("リマインダーを受け取る").check()
    section.get_by_label("何分前に").fill("20")
    section.get_by_label("静かな時間（開始）").fill("23:00")
    section.get_by_label("静かな時間（終了）").fill("06:00")
    section.locator("button[type=submit]").click()
    expect(page.locator(".notice")).to_be_visible()
    expect(section.get_by_label("リマインダーを受け取る")).to_be_checked()
    expect(section.get_by_label("何分前に")).to_have_value("20")
    expect(section.locator("#pushes")).to_contain_text("今月のLINE送信: 0 / 200 通")
    shoot(page, "settings-reminders")

    page.goto("/notifications")
    expect(page.locator("#no-notifications")).to_be_visible()
    mark_page(page)
    clock = FakeClock("2026-12-01T00:00:00+00:00")
    site.backend.store.set_time_zone(HOME, "Asia/Tokyo")
    db = open_database(site.db, SCHEDULE_SCHEMA)
    try:
        scheduler = Scheduler(db, None, clock=clock)
        _tick(scheduler)
        site.backend.store.add_event(HOME, "三者面談", "2026-12-01T10:00", by="husband")
        clock.set("2026-12-01T00:40:00+00:00")  # 09:40 in Tokyo: 20 minutes before
        _tick(scheduler)
    finally:
        db.close()
    expect(page.locator("#notifications li")).to_contain_text(["⏰ 12/1 10:00 三者面談"], timeout=20_000)
    shown_at = page.locator("#notifications li .muted").inner_text()
    assert "9:40" in shown_at and "0:40" not in shown_at.replace("9:40", "")  # the household's zone
    assert same_document(page)
    shoot(page, "notifications")


def test_the_pages_in_english_on_a_phone(browser: Browser, base: str, site: Site) -> None:
    with opened(browser, base, locale="en-US", viewport=PHONE) as page:
        sign_in(page, "husband")
        page.goto("/settings")
        section = page.locator("#reminders")
        expect(section.locator("h2")).to_have_text("Reminders and morning digest")
        section.get_by_label("Send me a morning digest").check()
        section.get_by_label("Digest time").fill("06:30")
        section.locator("button[type=submit]").click()
        expect(section.get_by_label("Digest time")).to_have_value("06:30")
        page.goto("/notifications")
        expect(page.locator("#no-notifications")).to_contain_text("Turn on reminders or the morning digest")
