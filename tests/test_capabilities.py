"""The capability table against the fake Messages API, which refuses what the real one refuses per model.

Every built-in mode on every model family must be accepted; the old budget form on an adaptive-only
model, a tool version the model lacks and a non-strict schema marked strict must be refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import anthropic
import pytest

from shitsuji.agent import DEFAULT_MODES, load_modes
from shitsuji.errors import ModelRequestError, UserInputError
from shitsuji.llm import AnthropicModel, CapabilityTable, ModelRequest, WebTools, text_response

from .fake_anthropic import FakeMessagesAPI
from .pictures import encoded, png

FAMILIES = [
    "claude-opus-4-7",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    # deprecated (the SDK warns) but still served until January 2027
    pytest.param("claude-opus-4-5", marks=pytest.mark.filterwarnings("ignore::DeprecationWarning")),
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "anthropic.claude-sonnet-4-6",  # Bedrock's name matches the same row
]
WRITE_TOOL = {
    "name": "add_expense",
    "description": "Record an expense.",
    "strict": True,
    "input_schema": {
        "type": "object",
        "properties": {"amount": {"type": "integer"}, "note": {"type": "string"}},
        "required": ["amount"],
        "additionalProperties": False,
    },
}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


def client(api: FakeMessagesAPI, table: CapabilityTable | None = None) -> AnthropicModel:
    return AnthropicModel(api_key="k", base_url=api.url, max_retries=0, capabilities=table)


def ask(api: FakeMessagesAPI, req: ModelRequest, table: CapabilityTable | None = None) -> dict[str, object]:
    api.reply(text_response("はい"))
    before = len(api.requests)
    asyncio.run(client(api, table).respond(req))
    return api.requests[before]


def mode_request(mode_name: str, model: str) -> ModelRequest:
    mode = replace(DEFAULT_MODES[mode_name], model=model)
    return ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "明日の予定は？"}],
        tools=[WRITE_TOOL],
        max_tokens=mode.max_tokens,
        depth=mode.depth,
        web=mode.web(),
    )


@pytest.mark.parametrize("model", FAMILIES)
@pytest.mark.parametrize("mode", sorted(DEFAULT_MODES))
def test_every_mode_on_every_family_is_accepted(api: FakeMessagesAPI, mode: str, model: str) -> None:
    sent = ask(api, mode_request(mode, model))
    thinking = sent.get("thinking")
    depth = DEFAULT_MODES[mode].depth
    if "4-7" in model and depth == "none":  # thinking cannot be off there: the least of it
        assert thinking == {"type": "adaptive"} and sent["output_config"] == {"effort": "low"}
    elif "haiku" in model or depth == "none":
        assert thinking is None and "output_config" not in sent
    elif "4-5" in model:  # only a budget; Opus 4.5 also takes an effort
        assert thinking["type"] == "enabled"  # type: ignore[index]
        assert thinking["budget_tokens"] < sent["max_tokens"]  # type: ignore[index, operator]
    else:
        assert thinking == {"type": "adaptive"}
        assert sent["output_config"] == {"effort": {"fast": "low", "normal": "medium", "deep": "high"}[depth]}
    assert sent["tools"][0]["strict"] is True  # type: ignore[index]
    versions = {t["type"] for t in sent["tools"][1:]}  # type: ignore[index, union-attr]
    if DEFAULT_MODES[mode].web_search:
        newest = "4-6" in model or "4-7" in model
        assert ("web_search_20260209" in versions) == newest
        assert ("web_search_20250305" in versions) != newest


def test_the_fake_refuses_the_old_thinking_form_on_an_adaptive_only_model(api: FakeMessagesAPI) -> None:
    sdk = anthropic.Anthropic(api_key="k", base_url=api.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="adaptive"):
        sdk.messages.create(
            model="claude-opus-4-7",
            max_tokens=8192,
            messages=[{"role": "user", "content": "hi"}],
            thinking={"type": "enabled", "budget_tokens": 4096},
        )
    # and our adapter never sends it: deep on Opus 4.7 is adaptive with an effort
    sent = ask(api, ModelRequest("claude-opus-4-7", [{"role": "user", "content": "hi"}], depth="deep"))
    assert sent["thinking"] == {"type": "adaptive"} and sent["output_config"] == {"effort": "high"}


def test_a_wrong_table_row_is_refused_like_the_real_api(api: FakeMessagesAPI) -> None:
    wrong = CapabilityTable().overridden({"claude-sonnet-4-5": {"thinking": "adaptive"}})
    req = ModelRequest("claude-sonnet-4-5", [{"role": "user", "content": "hi"}], depth="deep")
    with pytest.raises(ModelRequestError, match=r"HTTP 400.*adaptive"):
        asyncio.run(client(api, wrong).respond(req))


def test_a_non_strict_schema_marked_strict_is_refused(api: FakeMessagesAPI) -> None:
    loose = {**WRITE_TOOL, "input_schema": {"type": "object", "properties": {"amount": {"type": "integer"}}}}
    req = ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": "hi"}], tools=[loose])
    with pytest.raises(ModelRequestError, match="additionalProperties"):
        asyncio.run(client(api).respond(req))


def test_strict_is_dropped_where_the_model_lacks_it(api: FakeMessagesAPI) -> None:
    sent = ask(api, ModelRequest("some-local-model", [{"role": "user", "content": "hi"}], tools=[WRITE_TOOL]))
    assert "strict" not in sent["tools"][0]  # type: ignore[index]


def test_a_tool_version_the_model_lacks_falls_back_to_the_older_one(api: FakeMessagesAPI) -> None:
    claims = CapabilityTable().overridden(
        {"claude-sonnet-4-5": {"web_search": ["web_search_20260209", "web_search_20250305"]}}
    )
    model = client(api, claims)
    req = ModelRequest("claude-sonnet-4-5", [{"role": "user", "content": "天気"}], web=WebTools(search=True))
    for _ in range(2):  # the second call remembers the refusal: one request, the old version
        api.reply(text_response("晴れ"))
        before = len(api.requests)
        assert asyncio.run(model.respond(req)).text == "晴れ"
        sent = [r["tools"][0]["type"] for r in api.requests[before:]]
        assert sent[-1] == "web_search_20250305"
    assert sent == ["web_search_20250305"]


def test_an_unknown_model_gets_the_conservative_form_and_one_log_line(
    api: FakeMessagesAPI, caplog: pytest.LogCaptureFixture
) -> None:
    req = ModelRequest(
        "claude-future-9",
        [{"role": "user", "content": "hi"}],
        depth="deep",
        web=WebTools(search=True, fetch=True),
    )
    table = CapabilityTable()
    with caplog.at_level(logging.WARNING, logger="shitsuji.llm"):
        sent = ask(api, req, table)
        ask(api, req, table)
    assert "thinking" not in sent and "output_config" not in sent
    assert [t["type"] for t in sent["tools"]] == ["web_search_20250305"]  # type: ignore[union-attr]
    assert sum("claude-future-9" in r.getMessage() for r in caplog.records) == 1


def test_web_settings_come_from_the_mode(api: FakeMessagesAPI, tmp_path: Path) -> None:
    config = tmp_path / "shitsuji.toml"
    config.write_text(
        '[modes.info]\nweb_search_max_uses = 2\nweb_blocked_domains = ["example.net"]\n'
        'web_user_location = { city = "Tokyo", country = "JP", timezone = "Asia/Tokyo" }\n',
        encoding="utf-8",
    )
    info = load_modes(config, model="claude-sonnet-4-6")["info"]
    sent = ask(api, ModelRequest(info.model, [{"role": "user", "content": "hi"}], web=info.web()))
    search, fetch = sent["tools"]  # type: ignore[misc]
    assert search == {
        "type": "web_search_20260209",
        "name": "web_search",
        "max_uses": 2,
        "blocked_domains": ["example.net"],
        "user_location": {"type": "approximate", "city": "Tokyo", "country": "JP", "timezone": "Asia/Tokyo"},
    }
    assert fetch["type"] == "web_fetch_20260209" and fetch["blocked_domains"] == ["example.net"]


def test_bad_mode_and_model_settings_are_clear_errors(tmp_path: Path) -> None:
    config = tmp_path / "shitsuji.toml"
    config.write_text('[modes.info]\ndepth = "very"\n', encoding="utf-8")
    with pytest.raises(UserInputError, match="depth must be one of none, fast, normal, deep"):
        load_modes(config)
    config.write_text('[modes.info]\nweb_allowed_domains = ["a.jp"]\nweb_blocked_domains = ["b.jp"]\n')
    with pytest.raises(UserInputError, match="not both"):
        load_modes(config)
    with pytest.raises(UserInputError, match="thinking must be"):
        CapabilityTable().overridden({"my-model": {"thinking": "lots"}})
    with pytest.raises(UserInputError, match="may only set"):
        CapabilityTable().overridden({"my-model": {"colour": "red"}})


def test_one_hour_cache_and_context_editing_are_passed_through(api: FakeMessagesAPI) -> None:
    persona = {"type": "text", "text": "butler", "cache_control": {"type": "ephemeral"}}
    req = ModelRequest(
        "claude-sonnet-4-6",
        [{"role": "user", "content": "hi"}],
        system=[persona, {"type": "text", "text": "today"}],
        cache_ttl="1h",
        clear_tool_uses=True,
    )
    sent = ask(api, req)
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}  # type: ignore[index]
    assert "cache_control" not in sent["system"][1]  # type: ignore[index]
    assert sent["context_management"] == {"edits": [{"type": "clear_tool_uses_20250919"}]}
    assert "context-management-2025-06-27" in api.headers[-1]["anthropic-beta"]


def test_an_image_too_large_is_refused_by_the_fake_and_caught_before_sending(api: FakeMessagesAPI) -> None:
    import base64

    from shitsuji.bench._png import png
    from shitsuji.llm import CONSERVATIVE, ImageRefused, image_block

    big = png(padding=6 * 1024 * 1024)
    raw = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(big).decode()},
    }
    req = ModelRequest(
        "claude-sonnet-4-6", [{"role": "user", "content": [raw, {"type": "text", "text": "これは？"}]}]
    )
    with pytest.raises(ModelRequestError, match="exceeds 5 MB"):
        asyncio.run(client(api).respond(req))
    with pytest.raises(ImageRefused, match="at most 5 MB"):
        image_block(big, CONSERVATIVE)
    small = png()
    jpeg_named_png = {
        **raw,
        "source": {**raw["source"], "media_type": "image/jpeg", "data": base64.b64encode(small).decode()},
    }
    bad = ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": [jpeg_named_png]}])
    with pytest.raises(ModelRequestError, match="does not match"):
        asyncio.run(client(api).respond(bad))
    assert image_block(small, CONSERVATIVE)["source"]["media_type"] == "image/png"  # read from the bytes


def image(data: bytes, media_type: str) -> dict[str, object]:
    import base64

    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()},
    }


@pytest.mark.parametrize(
    ("data", "media_type", "refused"),
    [
        (encoded("JPEG")[:-300], "image/jpeg", "Could not process image"),
        (png(64, 64)[:-40], "image/png", "Could not process image"),
        (encoded("WEBP")[:30], "image/webp", "Could not process image"),
        (encoded("JPEG", 8100, 8), "image/jpeg", "exceed max allowed size: 8000"),
        (encoded("WEBP", 8100, 8), "image/webp", "exceed max allowed size: 8000"),
    ],
    ids=["jpeg-cut", "png-cut", "webp-cut", "jpeg-too-wide", "webp-too-wide"],
)
def test_what_the_fake_refuses_in_a_picture_our_check_refuses_before_sending(
    api: FakeMessagesAPI, data: bytes, media_type: str, refused: str
) -> None:
    from shitsuji.llm import CONSERVATIVE, ImageRefused, image_block

    req = ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": [image(data, media_type)]}])
    with pytest.raises(ModelRequestError, match=refused):
        asyncio.run(client(api).respond(req))
    with pytest.raises(ImageRefused) as caught:
        image_block(data, CONSERVATIVE)
    assert caught.value.reason == ("side" if "wide" in refused or "size" in refused else "corrupt")


def test_the_fake_takes_whole_pictures_and_refuses_many_large_ones_or_a_request_over_32_mb(
    api: FakeMessagesAPI,
) -> None:
    from shitsuji.llm import CONSERVATIVE, image_block

    whole = [encoded(kind) for kind in ("JPEG", "WEBP", "GIF", "PNG")] + [png(32, 32, text="メモ")]
    blocks = [image_block(data, CONSERVATIVE) for data in whole]  # our check lets real pictures through
    assert ask(api, ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": blocks}]))
    wide = image(encoded("PNG", 2100, 4), "image/png")
    many = [image(png(), "image/png")] * 20 + [wide]
    with pytest.raises(ModelRequestError, match="many-image requests: 2000 pixels"):
        asyncio.run(
            client(api).respond(ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": many}]))
        )
    too_many = [image(png(), "image/png")] * 101
    with pytest.raises(ModelRequestError, match="too many images"):
        asyncio.run(
            client(api).respond(ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": too_many}]))
        )
    heavy = [image(png(padding=4 * 1024 * 1024), "image/png")] * 7  # each under 5 MB, 37 MB in base64
    with pytest.raises(ModelRequestError, match=r"Request exceeds 33554432 bytes"):
        asyncio.run(
            client(api).respond(ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": heavy}]))
        )


def test_a_png_whose_pixel_data_inflates_past_its_size_is_refused_unread() -> None:
    import struct
    import zlib

    from shitsuji.llm import CONSERVATIVE, ImageRefused, image_block

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
    bomb = (
        b"\x89PNG\r\n\x1a\n"
        + header
        + chunk(b"IDAT", zlib.compress(bytes(100_000_000), 9))
        + chunk(b"IEND", b"")
    )
    assert len(bomb) < 200_000  # 97 KB on the wire, 100 MB once inflated, for a 4×4 picture
    with pytest.raises(ImageRefused) as caught:
        image_block(bomb, CONSERVATIVE)
    assert caught.value.reason == "corrupt"
