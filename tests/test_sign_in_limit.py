"""The sign-in rate limit over a real uvicorn server: concurrent guesses and forwarded addresses."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shitsuji.cli._serve import proxy_options
from shitsuji.errors import UserInputError

from .web_support import PASSWORD, Site, make_site, serving


@pytest.fixture
def site(target: str) -> Iterator[Site]:
    made = make_site(target, None)
    yield made
    made.close()


async def _posts(
    base: str, bodies: list[dict[str, Any]], headers: list[dict[str, str]] | None = None
) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        return list(
            await asyncio.gather(
                *(
                    client.post("/api/session", json=body, headers=(headers or [{}] * len(bodies))[i])
                    for i, body in enumerate(bodies)
                )
            )
        )


def test_forty_concurrent_wrong_passwords_get_five_checks_then_the_right_one_waits(site: Site) -> None:
    wrong = {"user": "wife", "password": "not the password", "household": "futari"}
    with serving(site.app) as base:
        answers = asyncio.run(_posts(base, [wrong] * 40))
        assert Counter(r.status_code for r in answers) == {400: 5, 429: 35}
        right = httpx.post(f"{base}/api/session", json={**wrong, "password": PASSWORD})
        assert right.status_code == 429 and 0 < int(right.headers["Retry-After"]) <= 15 * 60 + 1


def test_four_concurrent_wrong_passwords_still_let_the_right_one_in(site: Site) -> None:
    wrong = {"user": "wife", "password": "not the password", "household": "futari"}
    with serving(site.app) as base:
        answers = asyncio.run(_posts(base, [wrong] * 4))
        assert [r.status_code for r in answers] == [400] * 4
        right = httpx.post(f"{base}/api/session", json={**wrong, "password": PASSWORD})
        assert right.status_code == 200 and right.json()["user"] == "wife"


def _guesses(base: str) -> list[int]:
    """Six wrong guesses for six different (unknown) users, each claiming another forwarded address."""
    bodies = [{"user": f"guest{i}", "password": "guessing"} for i in range(6)]
    headers = [{"X-Forwarded-For": f"203.0.113.{i}"} for i in range(6)]
    return [r.status_code for r in asyncio.run(_posts(base, bodies, headers))]


def test_forwarded_addresses_from_an_untrusted_peer_are_ignored(site: Site) -> None:
    with serving(site.app, **proxy_options(True, "192.0.2.1")) as base:  # the proxy is elsewhere
        assert sorted(_guesses(base)) == [400] * 5 + [429]  # all counted against 127.0.0.1


def test_forwarded_addresses_from_the_trusted_proxy_are_used(site: Site) -> None:
    with serving(site.app, **proxy_options(True, "127.0.0.1")) as base:
        assert _guesses(base) == [400] * 6  # one guess per forwarded address
        again = [{"X-Forwarded-For": "203.0.113.7"}] * 6
        bodies = [{"user": f"other{i}", "password": "guessing"} for i in range(6)]
        assert sorted(r.status_code for r in asyncio.run(_posts(base, bodies, again))) == [400] * 5 + [429]


def test_trusted_proxy_must_name_an_address() -> None:
    assert proxy_options(False, "127.0.0.1") == {"proxy_headers": False}
    assert proxy_options(True, "10.0.0.2, 10.0.0.3")["forwarded_allow_ips"] == ["10.0.0.2", "10.0.0.3"]
    for bad in ("*", " "):
        with pytest.raises(UserInputError):
            proxy_options(True, bad)
