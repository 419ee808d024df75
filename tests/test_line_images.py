"""Photos on LINE: fetched from the content endpoint, sent to the model as image blocks, and untrusted
(text in a picture is outside text), so what the model makes of a receipt or a list waits on cards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from shitsuji.bench._png import png
from shitsuji.llm import tool_use_response

from .line_support import WIFE, LineSite, event, line_site


@pytest.fixture
def site(target: str) -> Iterator[LineSite]:
    with line_site(target) as running:
        running.link(WIFE, "wife")
        yield running


def send_photo(site: LineSite, message_id: str, data: bytes) -> None:
    site.fake.add_content(message_id, data, "image/png")
    photo = {"id": message_id, "type": "image", "contentProvider": {"type": "line"}, "quoteToken": "q"}
    sent = event("message", WIFE, message=photo, reply_token=site.fake.reply_token(WIFE))
    assert site.post(sent).status_code == 200
    site.settled()


def image_sent(site: LineSite) -> dict[str, Any]:
    content = site.script.requests[-1].messages[-1]["content"]
    return next(b for b in content if b["type"] == "image")


def test_a_photographed_list_becomes_list_item_cards(site: LineSite) -> None:
    site.script.then(
        tool_use_response(
            ("t1", "add_shopping_item", {"name": "牛乳"}), ("t2", "add_shopping_item", {"name": "卵"})
        )
    )
    send_photo(site, "m-list", png())
    assert image_sent(site)["source"]["media_type"] == "image/png"
    # adding to the list runs at once on LINE for typed words; from a picture it waits on cards
    assert site.backend.store.shopping_items("futari") == []
    pending = site.backend.butler.proposals.list(household="futari", status="pending")
    assert sorted(p.input["name"] for p in pending) == ["卵", "牛乳"]
    assert sum(1 for s in site.fake.answers_to(WIFE) for m in s.messages if m["type"] == "template") == 2
    content_gets = [p for p, h in site.fake.requests if p == "/v2/bot/message/m-list/content"]
    assert content_gets and all(h["authorization"].startswith("Bearer ") for p, h in site.fake.requests)


def test_a_photographed_receipt_becomes_an_expense_card(site: LineSite) -> None:
    site.script.then(
        tool_use_response(("t1", "add_expense", {"amount": 2480, "category": "食費", "note": "レシート"}))
    )
    send_photo(site, "m-receipt", png())
    [card] = site.backend.butler.proposals.list(household="futari", status="pending")
    assert card.tool == "add_expense" and card.input["amount"] == 2480
    stored = site.backend.butler.conversations.recent("futari", "wife", "line", limit=1)
    assert "image" not in str(stored)  # the picture went to the model, not into the conversation rows


@pytest.mark.parametrize(
    "data",
    [
        png(padding=6 * 1024 * 1024),
        png(9000, 10),
        b"%PDF-1.4 receipt",
        png(64, 64)[:-40],
    ],
    ids=["over-5MB", "too-wide", "not-an-image", "cut-off"],
)
def test_a_picture_the_model_cannot_read_gets_a_clear_answer(site: LineSite, data: bytes) -> None:
    send_photo(site, "m-bad", data)
    assert site.script.requests == []
    assert any("写真を読み込めませんでした" in a for a in site.answers(WIFE))
