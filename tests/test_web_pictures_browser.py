"""Pictures in the web chat, in a real browser: the ＋写真 button, paste and drag-and-drop put photos in the
composer; they go to the model with the words; a picture the server refuses is said in Japanese and the
typed words and the pictures stay to be sent again."""

from __future__ import annotations

import base64

from playwright.sync_api import Page, expect

from shitsuji.llm import text_response, tool_use_response

from .browser_support import Shoot, sign_in
from .fake_anthropic import FakeMessagesAPI
from .pictures import encoded, png

# a file handed to the page's script as a browser would (paste and drop build the same DataTransfer)
HAND_OVER = """([kind, name, type, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const moved = new DataTransfer();
  moved.items.add(new File([bytes], name, { type: type }));
  if (kind === "paste") {
    const box = document.querySelector("#composer textarea");
    box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: moved, bubbles: true, cancelable: true }));
  } else {
    const composer = document.getElementById("composer");
    composer.dispatchEvent(new DragEvent("dragover", { dataTransfer: moved, bubbles: true, cancelable: true }));
    composer.dispatchEvent(new DragEvent("drop", { dataTransfer: moved, bubbles: true, cancelable: true }));
  }
}"""


def hand_over(page: Page, kind: str, name: str, media_type: str, data: bytes) -> None:
    page.evaluate(HAND_OVER, [kind, name, media_type, base64.b64encode(data).decode()])


def choose(page: Page, name: str, media_type: str, data: bytes) -> None:
    with page.expect_file_chooser() as chooser:
        page.locator("#attach").click()
    chooser.value.set_files([{"name": name, "mimeType": media_type, "buffer": data}])


def test_photos_from_the_picker_a_paste_and_a_drop_go_to_the_model_with_the_words(
    page: Page, api: FakeMessagesAPI, shoot: Shoot
) -> None:
    sign_in(page)
    attached = page.locator("#attachments img")
    choose(page, "receipt.jpg", "image/jpeg", encoded("JPEG", 300, 500))
    hand_over(page, "paste", "image.png", "image/png", png(40, 30))
    hand_over(page, "drop", "list.webp", "image/webp", encoded("WEBP"))
    expect(attached).to_have_count(3)
    hand_over(page, "drop", "notes.txt", "text/plain", b"milk, eggs")  # refused by the page itself
    expect(page.locator(".msg.error").last).to_contain_text(
        "送れる写真は JPEG・PNG・GIF・WebP だけです（notes.txt）"
    )
    expect(attached).to_have_count(3)
    shoot(page, "chat-pictures-waiting", full_page=False)

    api.reply(text_response("task"))
    api.reply(
        tool_use_response(("t1", "add_expense", {"amount": 2480, "category": "食費", "note": "レシート"}))
    )
    box = page.locator("#composer textarea")
    box.fill("これ記録して")
    box.press("Enter")
    expect(page.locator(".messages .proposal")).to_have_count(1)
    expect(page.locator(".msg.user .bubble img.picture")).to_have_count(3)
    expect(attached).to_have_count(0)
    expect(box).to_have_value("")
    content = api.requests[-1]["messages"][-1]["content"]
    kinds = [b["source"]["media_type"] for b in content if b["type"] == "image"]
    assert kinds == ["image/jpeg", "image/png", "image/webp"]
    assert [b["text"] for b in content if b["type"] == "text"][-1] == "これ記録して"
    shoot(page, "chat-pictures-sent", full_page=False)


def test_a_picture_the_server_refuses_is_said_in_japanese_and_nothing_is_lost(
    page: Page, api: FakeMessagesAPI
) -> None:
    sign_in(page)
    choose(page, "cut.jpg", "image/jpeg", encoded("JPEG")[:-200])  # cut off: only the bytes tell
    box = page.locator("#composer textarea")
    box.fill("もう一枚")
    box.press("Enter")
    expect(page.locator(".msg.error").last).to_contain_text(
        "写真が壊れているか途中で切れているため読めません（cut.jpg）"
    )
    expect(box).to_have_value("もう一枚")  # the words stay
    expect(page.locator("#attachments img")).to_have_count(1)  # and so does the picture
    assert api.requests == []  # nothing reached the model

    page.locator("#attachments button").click()  # take the bad one out and send a good one
    expect(page.locator("#attachments img")).to_have_count(0)
    choose(page, "good.png", "image/png", png(50, 50))
    api.reply(text_response("chat"))
    api.reply(text_response("きれいな写真ですね。"))
    box.press("Enter")
    expect(page.locator(".msg.assistant .bubble").last).to_have_text("きれいな写真ですね。")
    expect(box).to_have_value("")
