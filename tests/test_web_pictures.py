"""Pictures in the web chat: a photo goes to the model as an image block, the way a LINE photo does
(the turn is untrusted), and a picture the model cannot read is refused in the member's language
before anything is stored or sent."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shitsuji.llm import text_response, tool_use_response

from .fake_anthropic import FakeMessagesAPI
from .pictures import encoded, png
from .test_web_api import events, signed_in
from .web_support import Site

Picture = tuple[str, bytes, str]


def post(client: TestClient, csrf: str, *pictures: Picture, lang: str = "ja", **form: str) -> Any:
    files = [("pictures", picture) for picture in pictures]
    headers = {"X-CSRF-Token": csrf, "Accept-Language": lang}
    return client.post("/api/chat/picture", data=form, files=files, headers=headers)


def images_sent(api: FakeMessagesAPI) -> list[dict[str, Any]]:
    content = api.requests[-1]["messages"][-1]["content"]
    return [b for b in content if b["type"] == "image"]


def test_a_photographed_receipt_becomes_an_expense_card_and_the_turn_is_untrusted(
    site: Site, api: FakeMessagesAPI
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    receipt = encoded("JPEG", 300, 600)
    api.reply(text_response("task"))
    api.reply(
        tool_use_response(("t1", "add_expense", {"amount": 2480, "category": "食費", "note": "レシート"}))
    )
    response = post(client, csrf, ("receipt.jpg", receipt, "image/jpeg"), message="これ記録して")
    assert response.status_code == 200, response.text
    [card] = [d for n, d in events(response.text) if n == "proposal"]
    assert card["tool"] == "add_expense" and card["state"] == "pending"
    [sent] = images_sent(api)
    assert sent["source"] == {
        "type": "base64",
        "media_type": "image/jpeg",
        "data": base64.b64encode(receipt).decode(),
    }
    content = api.requests[-1]["messages"][-1]["content"]
    assert [b.get("text") for b in content if b["type"] == "text"][-1] == "これ記録して"  # the words after it
    shown = client.get("/api/conversation").json()
    assert [i["text"] for i in shown["items"] if i.get("role") == "user"] == ["これ記録して"]
    stored = site.backend.butler.conversations.get(shown["id"], "futari", "wife")
    assert stored.untrusted[0] is True  # words in a picture are outside text, as on LINE
    assert "base64" not in str(stored.messages)  # the picture went to the model, not into the rows


def test_photos_alone_say_what_line_says_and_keep_their_types(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    api.reply(text_response("task"))
    api.reply(text_response("牛乳と卵ですね。"))
    pictures = [
        ("list.webp", encoded("WEBP"), "image/webp"),
        ("note.gif", encoded("GIF"), "application/octet-stream"),
    ]
    response = post(client, csrf, *pictures)
    assert response.status_code == 200, response.text
    assert [b["source"]["media_type"] for b in images_sent(api)] == [
        "image/webp",
        "image/gif",
    ]  # from the bytes
    said = client.get("/api/conversation").json()["items"][0]["text"]
    assert said.startswith("（写真を送りました。")


BAD: list[tuple[str, list[Picture], str, str]] = [
    (
        "type",
        [("receipt.png", b"%PDF-1.4 receipt", "image/png")],
        "JPEG・PNG・GIF・WebP だけ",
        "Only JPEG, PNG",
    ),
    (
        "size",
        [("big.png", png(padding=6 * 1024 * 1024), "image/png")],
        "大きすぎます（6.0 MB）",
        "too large (6.0 MB)",
    ),
    ("side", [("wide.png", png(9000, 10), "image/png")], "9000×10）。一辺 8000", "(9000×10): at most 8000"),
    (
        "corrupt",
        [("cut.jpg", encoded("JPEG")[:-200], "image/jpeg")],
        "壊れているか途中で切れて",
        "damaged or cut off",
    ),
    ("many", [("p.png", png(), "image/png")] * 5, "4 枚まで", "At most 4 pictures"),
]


@pytest.mark.parametrize(("why", "pictures", "ja", "en"), BAD, ids=[b[0] for b in BAD])
def test_a_picture_the_model_cannot_read_is_refused_in_the_members_language_and_nothing_is_kept(
    site: Site, api: FakeMessagesAPI, why: str, pictures: list[Picture], ja: str, en: str
) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    for lang, words in (("ja", ja), ("en", en)):
        refused = post(client, csrf, *pictures, lang=lang, message="これ買っておいて")
        assert refused.status_code == 400, refused.text
        assert words in refused.json()["message"], refused.json()
    assert api.requests == []  # nothing reached the model
    assert client.get("/api/conversation").json()["items"] == []  # and nothing was stored


def test_only_the_picture_route_takes_a_large_body(site: Site, api: FakeMessagesAPI) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    five = [("p.png", png(padding=4 * 1024 * 1024 + 512 * 1024), "image/png")] * 5  # 22.5 MB
    assert post(client, csrf, *five).status_code == 413
    big = [("p.png", png(padding=200 * 1024), "image/png")]
    files = [("pictures", p) for p in big]
    other = client.post("/api/chat", files=files, headers={"X-CSRF-Token": csrf})
    assert other.status_code == 413  # the chat's JSON route keeps its 64 KiB
    api.reply(text_response("task"))
    api.reply(text_response("拝見しました。"))
    assert post(client, csrf, *big, message="見て").status_code == 200  # 200 KB is fine here
    assert not post(client, "wrong", *big).is_success  # the CSRF check holds on this route too
