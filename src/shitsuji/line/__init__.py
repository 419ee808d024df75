"""The LINE channel: the same butler in LINE, over the official ``line-bot-sdk``.

``POST /line/webhook`` checks the signature and stores each event once (``Inbox``); a
worker (``LineWorker``, in ``shitsuji serve`` or ``shitsuji worker``) answers it through
the conversation service (``LineChannel``) and sends the answer with the reply token or
a push with a retry key (``Messenger``). A LINE account speaks for a household member
only after it sent a one-time code (``LineLinks``). ``FakeLineAPI`` is a local fake of
the Messaging API for tests and benchmarks.
"""

from ..household._line_links import CODE_TTL, LineLinks, Link, looks_like_code
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

__all__ = [
    "CHANNEL",
    "CODE_TTL",
    "LINE_INBOX_SCHEMA",
    "LINE_SCHEMA",
    "REPLY_WINDOW",
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
