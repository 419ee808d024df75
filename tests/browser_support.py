"""The browser side of the web tests: Debian's headless chromium driven by Playwright, the
fixtures that start it and a server, and what a person does on a page (sign in, send).

Screenshots go to the test's tmp_path, and also to ``$SHITSUJI_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Protocol

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from .web_support import HOME, PASSWORD, Site, serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
BROWSER_ZONE = "Asia/Tokyo"
WEEKDAYS_JA = "月火水木金土日"

expect.set_options(timeout=10_000)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.fail("the browser tests need Debian's chromium at /usr/bin/chromium: run `make browser`")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture
def base(site: Site) -> Iterator[str]:
    with serving(site.app) as url:
        yield url


@contextmanager
def opened(
    browser: Browser,
    base: str,
    *,
    locale: str = "ja-JP",
    viewport: dict[str, int] = DESKTOP,
    timezone_id: str = BROWSER_ZONE,
) -> Iterator[Page]:
    """A fresh browser profile (no cookies) whose Accept-Language follows ``locale``.

    The browser lives in Tokyo while the server runs in UTC (the test machine's zone): every
    time a person reads must still be the household's, whichever side wrote it.
    """
    context: BrowserContext = browser.new_context(
        base_url=base, viewport=viewport, locale=locale, timezone_id=timezone_id
    )
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def page(browser: Browser, base: str) -> Iterator[Page]:
    with opened(browser, base) as fresh:
        yield fresh


class Shoot(Protocol):
    def __call__(self, page: Page, name: str, *, full_page: bool = True) -> None: ...


@pytest.fixture
def shoot(tmp_path: Path) -> Shoot:
    """Screenshot the page at desktop and phone widths, then go back to desktop.

    The chat is shot as a person sees it (the viewport: its composer sticks to the bottom);
    the other pages whole.
    """
    out = os.environ.get("SHITSUJI_SCREENSHOTS")

    def take(page: Page, name: str, *, full_page: bool = True) -> None:
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            path = tmp_path / "shots" / f"{name}-{label}.png"
            page.screenshot(path=str(path), full_page=full_page, animations="disabled")
            assert path.stat().st_size > 1000
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                shutil.copy(path, Path(out) / path.name)
        page.set_viewport_size(DESKTOP)

    return take


def sign_in(page: Page, user: str = "wife", password: str = PASSWORD) -> None:
    page.goto("/login")
    page.locator("select[name=household]").select_option(HOME)
    page.locator("input[name=user]").fill(user)
    page.locator("input[name=password]").fill(password)
    page.locator("form[action='/login'] button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/(\?.*)?$"))
    expect(page.locator(".who .me")).to_contain_text(f"{user} @ {HOME}")
    page.wait_for_load_state()  # app.js is running


def mark_page(page: Page) -> None:
    """A flag that only survives while the page is not reloaded."""
    page.evaluate("window.__sameDocument = true")


def same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def send(page: Page, text: str) -> None:
    box = page.locator("#composer textarea")
    box.fill(text)
    box.press("Enter")


def ja_day(day: date) -> str:
    return f"{day.month}月{day.day}日({WEEKDAYS_JA[day.weekday()]})"
