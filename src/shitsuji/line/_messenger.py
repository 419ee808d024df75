"""Sending to LINE through the official SDK, within the Messaging API's rules.

``Messenger`` wraps ``linebot.v3``'s async client: a reply uses the event's reply token
(free, but only while it is fresh and only once), a push names the chat and carries an
``X-Line-Retry-Key`` so that LINE accepts a retried push once (a 409 for a key it has
already accepted means the push went out). A 429 is retried after the server's
``Retry-After`` or an exponential backoff, a few times, then handed back as
``LineRateLimited`` for the durable queue to retry later; pushes also pass a token-bucket
``RateLimiter`` first, so a burst of answers stays under the channel's rate.

    ShitsujiError
    └── LineApiError            the Messaging API refused or failed
        ├── LineRateLimited     still 429 after the retries (``retry_after`` seconds)
        └── LineUnavailable     5xx or no connection: try again later
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import aiohttp
from linebot.v3.messaging import (
    ApiException,
    AsyncApiClient,
    AsyncMessagingApi,
    Configuration,
    Message,
    PushMessageRequest,
    ReplyMessageRequest,
    ShowLoadingAnimationRequest,
)

from ..errors import ShitsujiError
from ._settings import LineSettings

__all__ = ["LineApiError", "LineRateLimited", "LineUnavailable", "Messenger", "RateLimiter"]

log = logging.getLogger(__name__)

MAX_MESSAGES = 5  # per reply or push request
RETRIES_429 = 3


class LineApiError(ShitsujiError):
    """The Messaging API refused the request or failed."""

    def __init__(self, message: str, *, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class LineRateLimited(LineApiError):
    """The Messaging API kept answering 429 (too many requests)."""

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message, status=429)
        self.retry_after = retry_after


class LineUnavailable(LineApiError):
    """The Messaging API could not be reached or failed on its side."""


class RateLimiter:
    """A token bucket: at most ``rate`` acquisitions per second, bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._tokens = self.burst
        self._at = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
                self._at = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await asyncio.sleep((1 - self._tokens) / self.rate)


def _retry_after(exc: ApiException, attempt: int) -> float:
    headers: Any = exc.headers or {}
    try:
        return max(0.0, float(headers.get("Retry-After")))
    except (TypeError, ValueError):
        return min(0.5 * 2.0**attempt, 8.0)


def _detail(exc: ApiException) -> str:
    body = exc.body.decode(errors="replace") if isinstance(exc.body, bytes) else str(exc.body or "")
    return f"HTTP {exc.status}: {body[:300]}"


class Messenger:
    """The LINE Messaging API for one channel; use it as ``async with Messenger(settings) as line``."""

    def __init__(self, settings: LineSettings, *, limiter: RateLimiter | None = None) -> None:
        self.settings = settings
        self.limiter = limiter or RateLimiter(settings.push_rate)
        self._client: AsyncApiClient | None = None
        self._api: AsyncMessagingApi | None = None

    async def __aenter__(self) -> Messenger:
        config = Configuration(access_token=self.settings.channel_token, host=self.settings.api_url)
        self._client = AsyncApiClient(config)  # its aiohttp session belongs to the running loop
        self._api = AsyncMessagingApi(self._client)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._client is not None:
            await self._client.close()
        self._client = self._api = None

    @property
    def api(self) -> AsyncMessagingApi:
        if self._api is None:
            raise RuntimeError("use the Messenger inside `async with`")
        return self._api

    async def reply(self, token: str, messages: Sequence[dict[str, Any]]) -> bool:
        """Answer with the reply token; False when LINE no longer accepts the token (push instead)."""
        request = ReplyMessageRequest(
            replyToken=token, messages=[Message.from_dict(m) for m in messages[:MAX_MESSAGES]]
        )
        try:
            await self._call("reply", self.api.reply_message, request)
        except LineApiError as exc:
            if exc.status == 400:  # "Invalid reply token": expired or used
                log.info("reply token refused, pushing instead: %s", exc)
                return False
            raise
        return True

    async def push(self, to: str, messages: Sequence[dict[str, Any]], retry_key: str) -> None:
        """Push to a user, group or room; a retry with the same ``retry_key`` is delivered once."""
        request = PushMessageRequest(to=to, messages=[Message.from_dict(m) for m in messages[:MAX_MESSAGES]])
        await self.limiter.acquire()
        try:
            await self._call("push", self.api.push_message, request, x_line_retry_key=retry_key)
        except LineApiError as exc:
            if exc.status == 409:  # this retry key was accepted before: the push went out already
                log.info("push %s was already accepted", retry_key)
                return
            raise

    async def loading(self, user: str, seconds: int = 20) -> None:
        """LINE's loading animation in a one-to-one chat while the answer is written (best effort)."""
        request = ShowLoadingAnimationRequest(chatId=user, loadingSeconds=seconds)
        try:
            await self._call("loading", self.api.show_loading_animation, request)
        except LineApiError as exc:
            log.info("no loading animation: %s", exc)

    async def _call(self, what: str, method: Any, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(RETRIES_429 + 1):
            try:
                return await method(*args, **kwargs)
            except ApiException as exc:
                if exc.status == 429:
                    wait = _retry_after(exc, attempt)
                    if attempt < RETRIES_429:
                        log.info("LINE %s: 429, retrying in %.1f s", what, wait)
                        await asyncio.sleep(wait)
                        continue
                    raise LineRateLimited(f"LINE {what}: {_detail(exc)}", retry_after=wait) from exc
                if exc.status in (401, 403):
                    raise LineApiError(
                        f"LINE {what}: the channel access token was refused ({_detail(exc)}): "
                        "check SHITSUJI_LINE_CHANNEL_TOKEN",
                        status=exc.status,
                    ) from exc
                if exc.status >= 500:
                    raise LineUnavailable(f"LINE {what}: {_detail(exc)}", status=exc.status) from exc
                raise LineApiError(f"LINE {what}: {_detail(exc)}", status=exc.status) from exc
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise LineUnavailable(f"LINE {what}: cannot reach the Messaging API ({exc})") from exc
        raise AssertionError("unreachable")  # pragma: no cover
