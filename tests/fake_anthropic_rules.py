"""What the real Messages API refuses with HTTP 400, per model family, for the local fake.

Written from the platform documentation, independently of ``shitsuji.llm``'s capability table, so a
wrong row in that table makes a request the fake refuses (as the real API would) and a test fails.
Models the fake does not know (``claude-test``) get only the rules that hold for every model.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

from shitsuji.llm._images import sniff  # magic bytes are a fact, not a rule: shared with the checks

ADAPTIVE_ONLY = ("claude-opus-4-7", "claude-mythos")
ADAPTIVE = ("claude-opus-4-6", "claude-sonnet-4-6", *ADAPTIVE_ONLY)
BUDGET = ("claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5")
EFFORTS = {
    "claude-opus-4-7": {"low", "medium", "high", "xhigh", "max"},
    "claude-opus-4-6": {"low", "medium", "high", "max"},
    "claude-sonnet-4-6": {"low", "medium", "high", "max"},
    "claude-opus-4-5": {"low", "medium", "high"},
}
NEW_WEB = ("claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6")
TOOL_VERSIONS = {
    "web_search_20250305": BUDGET + ADAPTIVE_ONLY,
    "web_fetch_20250910": BUDGET + ADAPTIVE_ONLY,
    "web_search_20260209": NEW_WEB,
    "web_fetch_20260209": NEW_WEB,
}
STRICT_FORBIDDEN = {
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
}
IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
IMAGE_MAX_BYTES = 5 * 1024 * 1024
IMAGE_MAX_SIDE = 8000
MAX_IMAGES = 100  # per request, on models with a 200k-token window
MANY_IMAGES = 20  # past this many images in one request, each may be 2000 px on a side at most
MANY_IMAGES_MAX_SIDE = 2000
MAX_REQUEST_BYTES = 32 * 1024 * 1024  # the standard endpoints' request size limit (413 request_too_large)


def _family(model: str, families: tuple[str, ...] | dict[str, Any]) -> str | None:
    return next((f for f in families if f in model), None)


def refusal(request: dict[str, Any]) -> str | None:
    """Why the real API would answer this request with 400, or None."""
    model = str(request.get("model", ""))
    known = _family(model, BUDGET + ADAPTIVE_ONLY) is not None
    checks = [_tool_problem(t, model, known) for t in request.get("tools", ())]
    checks.append(_images_problem(_blocks(request)))
    if known:
        checks.append(_thinking_problem(request, model))
    return next((c for c in checks if c), None)


def _thinking_problem(request: dict[str, Any], model: str) -> str | None:
    thinking = request.get("thinking") or {}
    kind = thinking.get("type")
    if kind == "enabled":
        if _family(model, BUDGET) is None:
            return (
                f"thinking.type.enabled is not supported for this model. Use thinking.type.adaptive ({model})"
            )
        budget = thinking.get("budget_tokens", 0)
        if budget < 1024:
            return "thinking.budget_tokens: must be greater than or equal to 1024"
        if budget >= request.get("max_tokens", 0):
            return "max_tokens must be greater than thinking.budget_tokens"
    if kind == "adaptive" and _family(model, ADAPTIVE) is None:
        return f"thinking.type.adaptive is not supported for this model ({model})"
    if kind == "disabled" and _family(model, ADAPTIVE_ONLY):
        return f"thinking.type.disabled is not supported for this model ({model})"
    effort = (request.get("output_config") or {}).get("effort")
    if effort is not None:
        family = _family(model, EFFORTS)
        if family is None:
            return f"output_config.effort: This model does not support the effort parameter ({model})"
        if effort not in EFFORTS[family]:
            return f"output_config.effort: {effort!r} is not supported for {model}"
    return None


def _tool_problem(tool: dict[str, Any], model: str, known: bool) -> str | None:
    kind = tool.get("type")
    if kind in TOOL_VERSIONS and known and _family(model, TOOL_VERSIONS[kind]) is None:
        return f"tools.0: '{kind}' is not supported for model {model}"
    if tool.get("allowed_domains") and tool.get("blocked_domains"):
        return "tools: cannot specify both allowed_domains and blocked_domains"
    if tool.get("strict") is True and "input_schema" in tool:
        return _strict_problem(tool["input_schema"], tool.get("name", "?"))
    return None


def _strict_problem(schema: Any, name: str) -> str | None:
    if isinstance(schema, list):
        return next((p for s in schema if (p := _strict_problem(s, name))), None)
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
        return f"tools.{name}.input_schema: For 'object' type, 'additionalProperties' must be explicitly set to false"
    bad = STRICT_FORBIDDEN & set(schema)
    if bad:
        return f"tools.{name}.input_schema: property {sorted(bad)[0]!r} is not supported with strict"
    nested = [v for k, v in schema.items() if k in ("properties", "$defs")]
    children = [v for d in nested if isinstance(d, dict) for v in d.values()]
    children += [schema[k] for k in ("items", "anyOf", "allOf") if k in schema]
    return next((p for c in children if (p := _strict_problem(c, name))), None)


def _blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in request.get("messages", ()):
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            out.append(block)
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                out += block["content"]
    return out


def _images_problem(blocks: list[dict[str, Any]]) -> str | None:
    """Each image alone (type, size, decodes, sides), then the request's count and its many-image limit."""
    images = [b for b in blocks if b.get("type") == "image" and b.get("source", {}).get("type") == "base64"]
    sides: list[tuple[int, int]] = []
    for block in images:
        problem = _image_problem(block["source"])
        if isinstance(problem, str):
            return problem
        sides.append(problem)
    if len(images) > MAX_IMAGES:
        return f"messages: too many images: {len(images)} > {MAX_IMAGES}"
    if len(images) > MANY_IMAGES and any(max(s) > MANY_IMAGES_MAX_SIDE for s in sides):
        return (
            "messages: At least one of the image dimensions exceed max allowed size for many-image "
            f"requests: {MANY_IMAGES_MAX_SIDE} pixels"
        )
    return None


def _image_problem(source: dict[str, Any]) -> str | tuple[int, int]:
    """Why one image is refused, else its (width, height) as a decoder reads it."""
    if source.get("media_type") not in IMAGE_TYPES:
        return f"messages: image source media_type {source.get('media_type')!r} is not supported"
    data = base64.b64decode(source.get("data", ""))
    if len(data) > IMAGE_MAX_BYTES:
        return f"messages: image exceeds 5 MB maximum: {len(data)} bytes > {IMAGE_MAX_BYTES} bytes"
    actual = sniff(data)
    if actual != source["media_type"]:
        return f"messages: Image does not match the provided media type {source['media_type']}"
    size = decoded_size(data)
    if size is None:
        return "messages: Could not process image"
    if max(size) > IMAGE_MAX_SIDE:
        return f"messages: image dimensions exceed max allowed size: {IMAGE_MAX_SIDE} pixels"
    return size


def decoded_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) when a real decoder (Pillow) reads every pixel, None when it cannot."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return int(image.size[0]), int(image.size[1])
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return None
