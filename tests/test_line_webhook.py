"""The LINE webhook: the signature checked before anything is read, each event stored and answered once,
nothing from an unlinked sender reaching the butler, linking by one-time code, other event types."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shitsuji.line import LineLinks, looks_like_code
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import database, open_database

from .conftest import Clock
from .line_support import (
    HUSBAND,
    STRANGER,
    WIFE,
    LineSite,
    body_of,
    event,
    line_site,
    signature,
    text_event,
)
from .web_support import PASSWORD, make_site, serving


@pytest.fixture
def site(target: str) -> Iterator[LineSite]:
    with line_site(target) as running:
        yield running


def _conversations(site: LineSite) -> int:
    row = site.backend.butler.conversations._conn.execute(
        "SELECT count(*) FROM conversation_messages"
    ).fetchone()
    return int(row[0])


# -- the signature --------------------------------------------------------------


@pytest.mark.parametrize(
    "sign",
    [
        lambda body: signature(body, "another-secret"),  # signed by someone else
        lambda body: signature(body + b" "),  # a body changed after signing
        lambda body: "",  # no signature at all
    ],
)
def test_a_wrong_or_missing_signature_is_refused_and_nothing_is_stored_or_answered(
    site: LineSite, sign
) -> None:  # type: ignore[no-untyped-def]
    site.link(WIFE, "wife")
    answer = site.post(text_event(WIFE, "牛乳買っといて", reply_token=site.fake.reply_token(WIFE)), sign=sign)
    assert answer.status_code == 400 and "signature" in answer.json()["error"].lower()
    assert site.line.inbox.counts() == {} and site.fake.sent == []
    assert _conversations(site) == 0 and site.script.requests == []


def test_a_body_that_is_not_json_is_refused_even_when_signed(site: LineSite) -> None:
    body = b"{not json"
    answer = site.client.post(
        f"{site.url}/line/webhook", content=body, headers={"X-Line-Signature": signature(body)}
    )
    assert answer.status_code == 400 and site.line.inbox.counts() == {}


def test_an_oversized_body_is_refused_before_it_is_read(site: LineSite) -> None:
    huge = text_event(WIFE, "あ" * 30_000)
    answer = site.post(huge)
    assert answer.status_code == 413 and site.line.inbox.counts() == {}


def test_the_verify_button_empty_events_gets_200(site: LineSite) -> None:
    assert site.post().status_code == 200


def test_without_line_settings_the_webhook_says_what_to_set(db_path: Path) -> None:
    plain = make_site(db_path, None)
    try:
        with serving(plain.app) as url:
            body = body_of()
            answer = __import__("httpx").post(
                f"{url}/line/webhook", content=body, headers={"X-Line-Signature": signature(body)}
            )
    finally:
        plain.close()
    assert answer.status_code == 503 and "SHITSUJI_LINE_CHANNEL_SECRET" in answer.json()["error"]


# -- each event once ------------------------------------------------------------------


def test_a_redelivered_or_reposted_event_is_acknowledged_and_processed_once(site: LineSite) -> None:
    site.link(WIFE, "wife")
    first = text_event(WIFE, "こんにちは", reply_token=site.fake.reply_token(WIFE))
    assert site.post(first).status_code == 200
    site.settled()
    again = {**first, "deliveryContext": {"isRedelivery": True}}
    assert site.post(again).status_code == 200
    assert site.post(first).status_code == 200  # the very same post twice
    site.settled()
    assert site.line.inbox.counts() == {"done": 1}
    assert len(site.script.requests) == 1 and site.answers(WIFE) == ["はい"]


# -- who is speaking ------------------------------------------------------------------


def test_an_unlinked_sender_gets_one_polite_line_and_reaches_nothing(site: LineSite) -> None:
    site.say(STRANGER, "牛乳買っといて")
    site.settled()
    [answer] = site.answers(STRANGER)
    assert "リンクコード" in answer
    assert site.script.requests == [] and _conversations(site) == 0
    assert site.backend.store.shopping_items("futari") == []
    assert site.backend.memory.stats().memories == 0
    jobs = open_database(site.db, MEMORY_SCHEMA).execute("SELECT count(*) FROM jobs")  # extraction's queue
    assert jobs.fetchone()[0] == 0


def test_an_unlinked_english_sender_is_answered_in_english(site: LineSite) -> None:
    site.say(STRANGER, "please buy milk")
    site.settled()
    assert "link code" in site.answers(STRANGER)[0]


def test_linking_with_a_one_time_code_then_talking(site: LineSite) -> None:
    code = site.line.links.new_code("futari", "husband")
    site.say(HUSBAND, code.lower().replace("-", ""))  # typed loosely on a phone
    site.settled()
    assert "husband" in site.answers(HUSBAND)[-1] and "つながりました" in site.answers(HUSBAND)[-1]
    site.say(STRANGER, code)  # the same code again, from someone else
    site.settled()
    assert "使えません" in site.answers(STRANGER)[-1]
    assert site.line.links.get(STRANGER) is None
    site.say(HUSBAND, "tomorrow")  # eight letters, like a code without its hyphen: a word from him now
    site.settled()
    assert site.answers(HUSBAND)[-1] == "はい" and len(site.script.requests) == 1
    [conversation] = site.backend.butler.conversations.recent("futari", "husband", "line")
    assert conversation["messages"] == 2 and site.line.links.get(HUSBAND) is not None


def test_codes_are_stored_hashed_expire_and_a_new_one_replaces_the_old(target: str, clock: Clock) -> None:
    links = LineLinks(database(target), clock=clock)
    old = links.new_code("futari", "wife")
    new = links.new_code("futari", "wife")
    stored = [r[0] for r in links._conn.execute("SELECT code_hash FROM line_link_codes")]
    assert old not in stored and new not in stored and len(stored) == 1
    assert links.redeem(WIFE, old) is None  # replaced
    clock.advance(minutes=11)
    assert links.redeem(WIFE, new) is None  # expired
    late = links.new_code("futari", "wife")
    assert links.redeem(WIFE, late) is not None and links.redeem(WIFE, late) is None  # single use
    assert looks_like_code("コード: abcd-efgh") == "ABCD-EFGH" and looks_like_code("牛乳買っといて") is None
    links.close()


def test_the_web_app_issues_a_code_with_csrf_like_every_write(site: LineSite) -> None:
    client = site.client
    signed = client.post(
        f"{site.url}/api/session", json={"user": "wife", "password": PASSWORD, "household": "futari"}
    )
    assert signed.status_code == 200, signed.text
    csrf = signed.json()["csrf"]
    assert client.post(f"{site.url}/api/line/code").status_code == 403  # no CSRF token
    made = client.post(f"{site.url}/api/line/code", headers={"X-CSRF-Token": csrf}).json()
    assert made["linked"] is False
    site.say(WIFE, made["code"])
    site.settled()
    assert "wife" in site.answers(WIFE)[-1]
    assert client.get(f"{site.url}/api/line").json()["linked"] is True
    page = client.get(f"{site.url}/memories")
    assert "LINE" in page.text
    shown = client.post(f"{site.url}/line/code", data={"csrf": csrf})
    assert shown.status_code == 200 and "data-line-code" in shown.text


# -- other event types ----------------------------------------------------------------


def test_stickers_images_follow_join_get_short_friendly_replies(site: LineSite) -> None:
    site.link(WIFE, "wife")
    sticker = {
        "id": "1",
        "type": "sticker",
        "packageId": "1",
        "stickerId": "1",
        "stickerResourceType": "STATIC",
        "quoteToken": "q",
    }
    image = {"id": "2", "type": "image", "contentProvider": {"type": "line"}, "quoteToken": "q"}
    site.post(event("message", WIFE, message=sticker, reply_token=site.fake.reply_token(WIFE)))
    site.settled()
    site.post(event("message", WIFE, message=image, reply_token=site.fake.reply_token(WIFE)))
    site.settled()
    site.post(
        event("follow", STRANGER, reply_token=site.fake.reply_token(STRANGER), follow={"isUnblocked": False})
    )
    site.post(event("unfollow", HUSBAND))
    site.post(event("somethingNew", HUSBAND))
    site.settled()
    # pictures are read now (test_line_images.py); one LINE cannot hand over gets a clear line
    assert [a[:5] for a in site.answers(WIFE)] == ["スタンプあ", "写真を読み"]
    assert "友だち追加" in site.answers(STRANGER)[0] and "リンクコード" in site.answers(STRANGER)[1]
    assert site.answers(HUSBAND) == [] and site.script.requests == []
    assert site.line.inbox.counts() == {"done": 5}
