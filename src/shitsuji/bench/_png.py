"""Small, valid PNG files for the benches and the tests (no image library in the package).

A picture the model is sent must decode (the API refuses a damaged one), so even a bench's "photo of a
note" is a real image: one grey colour, with the note's words in a ``tEXt`` chunk — what a fooled model
is made to read — and, for size limits, any number of bytes in a private ancillary chunk that decoders skip.
"""

from __future__ import annotations

import struct
import zlib


def png(width: int = 4, height: int = 4, *, text: str | None = None, padding: int = 0) -> bytes:
    """An RGB PNG of ``width`` × ``height`` grey pixels, ``text`` in a tEXt chunk, ``padding`` bytes more."""
    rows = (b"\x00" + b"\x80\x80\x80" * width) * height  # filter byte 0, then the pixels of each row
    chunks = [(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))]
    if text is not None:
        chunks.append((b"tEXt", b"Comment\x00" + text.encode()))
    if padding:
        chunks.append((b"prVt", b"\x00" * padding))  # ancillary, private, safe to copy: skipped by readers
    chunks += [(b"IDAT", zlib.compress(rows, 9)), (b"IEND", b"")]
    out = b"\x89PNG\r\n\x1a\n"
    for kind, data in chunks:
        out += struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return out
