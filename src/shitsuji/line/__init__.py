"""The LINE channel: the same butler in LINE, over the official ``line-bot-sdk``.

``POST /line/webhook`` checks the signature and stores each event once (``Inbox``); a
worker (``LineWorker``, in ``shitsuji serve`` or ``shitsuji worker``) answers it through
the conversation service (``LineChannel``) and sends the answer with the reply token or
a push with a retry key (``Messenger``). A LINE account speaks for a household member
only after it sent a one-time code (``LineLinks``). ``FakeLineAPI`` is a local fake of
the Messaging API for tests and benchmarks. Names load on first use: linking a member from the
command line needs the links table, not the SDK.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "CHANNEL",
    "CODE_TTL",
    "LINE_INBOX_SCHEMA",
    "LINE_SCHEMA",
    "REPLY_WINDOW",
    "RESET_TTL",
    "WEBHOOK_PATH",
    "FakeLineAPI",
    "Inbox",
    "Lang",
    "LineApiError",
    "LineApp",
    "LineChannel",
    "LineLinks",
    "LineRateLimited",
    "LineSettings",
    "LineUnavailable",
    "LineWorker",
    "Link",
    "Messenger",
    "Pending",
    "RateLimiter",
    "Sent",
    "Tap",
    "TooManyCodes",
    "card",
    "chat_of",
    "inbox_path",
    "language_of",
    "looks_like_code",
    "looks_pasted",
    "nonce",
    "not_configured_router",
    "parse_tap",
    "retry_key",
    "say",
    "shopping_list",
    "text_messages",
    "webhook_router",
]

if TYPE_CHECKING:
    from ..household._line_links import CODE_TTL, RESET_TTL, LineLinks, Link, TooManyCodes, looks_like_code
    from ._app import LineApp
    from ._channel import CHANNEL, LineChannel
    from ._fake import FakeLineAPI, Sent
    from ._inbox import Inbox, Pending
    from ._messenger import LineApiError, LineRateLimited, LineUnavailable, Messenger, RateLimiter
    from ._pasted import looks_pasted
    from ._render import Tap, card, nonce, parse_tap, shopping_list, text_messages
    from ._schema import LINE_INBOX_SCHEMA, LINE_SCHEMA, inbox_path
    from ._settings import LineSettings
    from ._webhook import WEBHOOK_PATH, not_configured_router, webhook_router
    from ._words import Lang, language_of, say
    from ._worker import REPLY_WINDOW, LineWorker, chat_of, retry_key

__getattr__ = lazy_exports(
    __name__,
    {
        "CODE_TTL": "..household._line_links",
        "LineLinks": "..household._line_links",
        "Link": "..household._line_links",
        "looks_like_code": "..household._line_links",
        "RESET_TTL": "..household._line_links",
        "TooManyCodes": "..household._line_links",
        "LineApp": "._app",
        "CHANNEL": "._channel",
        "LineChannel": "._channel",
        "FakeLineAPI": "._fake",
        "Sent": "._fake",
        "Inbox": "._inbox",
        "Pending": "._inbox",
        "LineApiError": "._messenger",
        "LineRateLimited": "._messenger",
        "LineUnavailable": "._messenger",
        "Messenger": "._messenger",
        "RateLimiter": "._messenger",
        "looks_pasted": "._pasted",
        "Tap": "._render",
        "card": "._render",
        "nonce": "._render",
        "parse_tap": "._render",
        "shopping_list": "._render",
        "text_messages": "._render",
        "LINE_INBOX_SCHEMA": "._schema",
        "LINE_SCHEMA": "._schema",
        "inbox_path": "._schema",
        "LineSettings": "._settings",
        "WEBHOOK_PATH": "._webhook",
        "not_configured_router": "._webhook",
        "webhook_router": "._webhook",
        "Lang": "._words",
        "language_of": "._words",
        "say": "._words",
        "REPLY_WINDOW": "._worker",
        "LineWorker": "._worker",
        "chat_of": "._worker",
        "retry_key": "._worker",
    },
)
