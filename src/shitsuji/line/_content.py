"""Pictures members send on LINE, fetched from the Messaging API's content endpoint.

A webhook's image message carries only an id; the bytes are at
``GET https://api-data.line.me/v2/bot/message/{messageId}/content`` with the channel token (the SDK's
``MessagingApiBlob`` hard-codes that host, so a local fake could not stand in; this is the same request
over httpx). What comes back is checked by its bytes (``llm.image_block``), never by the header.
"""

from __future__ import annotations

import httpx

from ..errors import ShitsujiError

DATA_API = "https://api-data.line.me"
MAX_BYTES = 10 * 1024 * 1024  # LINE's own limit for an image message; the model's is checked after


class ContentUnavailable(ShitsujiError):
    """The picture could not be fetched (gone, too big, LINE failing)."""


class LineContent:
    """Fetches a message's content with the channel token."""

    def __init__(self, token: str, base_url: str | None = None, *, timeout: float = 20.0) -> None:
        self._base = (base_url or DATA_API).rstrip("/")
        self._token = token
        self._timeout = timeout

    async def fetch(self, message_id: str) -> bytes:
        url = f"{self._base}/v2/bot/message/{message_id}/content"
        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            async with (
                httpx.AsyncClient(timeout=self._timeout) as client,
                client.stream("GET", url, headers=headers) as response,
            ):
                if response.status_code != 200:
                    raise ContentUnavailable(f"LINE answered {response.status_code} for the picture")
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > MAX_BYTES:
                        raise ContentUnavailable("the picture is larger than LINE allows")
                return bytes(data)
        except httpx.HTTPError as exc:
            raise ContentUnavailable(f"cannot fetch the picture from LINE: {exc}") from exc
