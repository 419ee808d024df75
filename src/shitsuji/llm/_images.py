"""A picture as a Messages ``image`` block, checked against what the model accepts before it is sent.

The API refuses an image over 5 MB, wider or taller than 8,000 pixels, of another type than JPEG, PNG,
GIF or WebP, whose bytes are not the type it is declared as, or that it cannot decode — with a 400 that
loses the whole turn. So the type is read from the bytes (never from a file name or a header someone
else set), the limits come from the model's row of the capability table, and the file's structure is
walked (PNG chunks and their checksums down to the end of the pixel data, JPEG segments down to the
end-of-image marker, GIF's trailer, WebP's RIFF length): a cut-off download or a renamed file is a
clear ``ImageRefused`` before anything is sent, saying which of the four it is (``reason``).
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Literal

from ..errors import UserInputError
from ._capabilities import Capabilities
from ._types import Block

Reason = Literal["type", "size", "side", "corrupt"]
_INFLATE_STEP = 1 << 20  # PNG pixel data is inflated in pieces and thrown away: only its end is wanted


class ImageRefused(UserInputError):
    """The picture cannot be sent to the model: ``reason`` is type, size, side or corrupt, ``values``
    what a member is told (the limit, the picture's size)."""

    def __init__(self, reason: Reason, english: str, **values: object) -> None:
        super().__init__(english)
        self.reason = reason
        self.values = values


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
        if media_type == "image/webp":
            return _webp_size(data)
    except struct.error:
        return None
    return None


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


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind, body = data[12:16], data[20:]
    if kind == b"VP8X":  # extended: the canvas, 24-bit width and height minus one
        return 1 + int.from_bytes(body[4:7], "little"), 1 + int.from_bytes(body[7:10], "little")
    if kind == b"VP8L" and body[:1] == b"\x2f":  # lossless: 14 bits each, minus one
        bits = int.from_bytes(body[1:5], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 " and body[3:6] == b"\x9d\x01\x2a":  # lossy: the key frame's 14-bit sizes
        width, height = struct.unpack("<HH", body[6:10])
        return width & 0x3FFF, height & 0x3FFF
    return None


def whole(data: bytes, media_type: str) -> bool:
    """Whether the file is complete as its format says (not whether every pixel decodes)."""
    try:
        if media_type == "image/png":
            return _whole_png(data)
        if media_type == "image/jpeg":
            sos = data.find(b"\xff\xda")  # the pixel data starts; the end-of-image marker must follow
            return _jpeg_size(data) is not None and 0 < sos < data.rfind(b"\xff\xd9")
        if media_type == "image/gif":
            return len(data) > 13 and data.rstrip(b"\x00")[-1:] == b"\x3b"  # the trailer
        if media_type == "image/webp":
            declared = struct.unpack("<I", data[4:8])[0] + 8
            return declared <= len(data) <= declared + 1 and _webp_size(data) is not None
    except (struct.error, zlib.error):
        return False
    return False


def _whole_png(data: bytes) -> bool:
    """Every chunk's checksum holds, IHDR comes first, the pixel data inflates to its end (and no further
    than the header's size allows: a small file that inflates without end is refused, not inflated), IEND
    ends it."""
    i, kinds, inflated = 8, [], 0
    inflate = zlib.decompressobj()
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 4)
    most = 2 * height * (1 + (width * channels * depth + 7) // 8) + 1024  # Adam7 passes add row bytes
    while i + 12 <= len(data):
        length = struct.unpack(">I", data[i : i + 4])[0]
        kind, body = data[i + 4 : i + 8], data[i + 8 : i + 8 + length]
        if len(body) != length or data[i + 8 + length : i + 12 + length] != struct.pack(
            ">I", zlib.crc32(kind + body)
        ):
            return False
        kinds.append(kind)
        if kind == b"IDAT":
            while body and not inflate.eof:
                inflated += len(inflate.decompress(body, _INFLATE_STEP))
                body = inflate.unconsumed_tail
                if inflated > most:
                    return False
        i += 12 + length
        if kind == b"IEND":
            break
    return kinds[:1] == [b"IHDR"] and kinds[-1:] == [b"IEND"] and b"IDAT" in kinds and inflate.eof


def image_block(data: bytes, caps: Capabilities) -> Block:
    """``data`` as a base64 image block, or ``ImageRefused`` saying what is wrong."""
    media_type = sniff(data)
    if media_type is None or media_type not in caps.image_types:
        raise ImageRefused("type", "the picture is not a JPEG, PNG, GIF or WebP image")
    mib = caps.image_max_bytes // (1024 * 1024)
    if len(data) > caps.image_max_bytes:
        size = f"{len(data) / 1024 / 1024:.1f}"
        raise ImageRefused(
            "size", f"the picture is {size} MB; at most {mib} MB can be read", mb=size, limit=mib
        )
    side = dimensions(data, media_type)
    if side is not None and max(side) > caps.image_max_side:
        raise ImageRefused(
            "side",
            f"the picture is {side[0]}×{side[1]} pixels; at most {caps.image_max_side} on a side can be read",
            width=side[0],
            height=side[1],
            limit=caps.image_max_side,
        )
    if side is None or min(side) < 1 or not whole(data, media_type):
        raise ImageRefused("corrupt", "the picture is damaged or cut off: it cannot be read")
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}
