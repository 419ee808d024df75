"""Real pictures for the tests, written by Pillow (JPEG, WebP, GIF), and PNGs from the package's writer."""

from __future__ import annotations

import io

from PIL import Image

from shitsuji.bench._png import png

__all__ = ["encoded", "png"]


def encoded(kind: str, width: int = 120, height: int = 80) -> bytes:
    """A red picture of ``width`` × ``height`` in ``kind`` (JPEG, WEBP, GIF or PNG)."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, kind)
    return out.getvalue()
