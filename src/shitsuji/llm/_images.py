"""A picture as a Messages ``image`` block, checked against what the model accepts before it is sent.

The API refuses an image over 5 MB, wider or taller than 8,000 pixels, of another type than JPEG, PNG,
GIF or WebP, or whose bytes are not the type it is declared as — with a 400 that loses the whole turn.
So the type is read from the bytes (never from a file name or a header someone else set), and the
limits come from the model's row of the capability table; a picture that does not fit is a clear
``ImageRefused`` before anything is sent.
"""

from __future__ import annotations

import base64
import struct

from ..errors import UserInputError
from ._capabilities import Capabilities
from ._types import Block


class ImageRefused(UserInputError):
    """The picture cannot be sent to the model (type, size or dimensions)."""


def sniff(data: bytes) -> str | None:
    """The media type the bytes are, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def dimensions(data: bytes, media_type: str) -> tuple[int, int] | None:
    """(width, height) from the header, or None when it cannot be read."""
    try:
        if media_type == "image/png":
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if media_type == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return int(width), int(height)
        if media_type == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        return None
    return None  # WebP: the API checks it


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start-of-frame segment
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return None


def image_block(data: bytes, caps: Capabilities) -> Block:
    """``data`` as a base64 image block, or ``ImageRefused`` saying what is wrong."""
    media_type = sniff(data)
    if media_type is None or media_type not in caps.image_types:
        raise ImageRefused("the picture is not a JPEG, PNG, GIF or WebP image")
    if len(data) > caps.image_max_bytes:
        mib = caps.image_max_bytes // (1024 * 1024)
        raise ImageRefused(f"the picture is {len(data) / 1024 / 1024:.1f} MB; at most {mib} MB can be read")
    size = dimensions(data, media_type)
    if size is not None and max(size) > caps.image_max_side:
        raise ImageRefused(
            f"the picture is {size[0]}×{size[1]} pixels; at most {caps.image_max_side} on a side can be read"
        )
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}
