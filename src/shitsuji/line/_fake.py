"""A local fake of the LINE Messaging API, speaking its HTTP protocol, for tests and benchmarks.

The real ``line-bot-sdk`` client talks to it over loopback (``SHITSUJI_LINE_API_URL``), so
request building, headers and error handling are the SDK's own. It answers the paths the
SDK calls — ``/v2/bot/message/reply``, ``/v2/bot/message/push``, ``/v2/bot/chat/loading/start`` —
with LINE's errors: 401 for a wrong access token, 400 for an unknown, used or expired reply
token, 409 for a push whose ``X-Line-Retry-Key`` was accepted before, 400 for a push without ``to``, with
no or more than five messages or a retry key that is not a UUID, and any status a test
queues with ``fail_next`` (429 with ``Retry-After``, say). Everything accepted is recorded.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeLineAPI", "Sent"]

REPLY = "/v2/bot/message/reply"
PUSH = "/v2/bot/message/push"
LOADING = "/v2/bot/chat/loading/start"
BOT_INFO = "/v2/bot/info"


@dataclass(frozen=True, slots=True)
class Sent:
    """One accepted request: ``kind`` reply, push or loading; ``to`` the chat (or reply token)."""

    kind: str
    to: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    retry_key: str | None = None

    def texts(self) -> list[str]:
        return [str(m.get("text") or m.get("altText") or "") for m in self.messages]


@dataclass
class _Failure:
    path: str
    status: int
    headers: dict[str, str]


class FakeLineAPI:
    """A threaded HTTP server on a loopback port; ``url`` is what the SDK's ``Configuration(host=…)`` gets."""

    def __init__(self, token: str = "test-channel-token", *, reply_ttl_s: float = 60.0) -> None:
        self.token = token
        self.reply_ttl_s = reply_ttl_s
        self.sent: list[Sent] = []
        self.requests: list[tuple[str, dict[str, str]]] = []  # every request: path, headers
        self._tokens: dict[str, tuple[str, float]] = {}  # reply token -> (chat, issued at)
        self._keys: set[str] = set()
        self._failures: deque[_Failure] = deque()
        self.contents: dict[str, tuple[bytes, str]] = {}  # message id -> (bytes, content type)

        self._hold: threading.Event | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeLineAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._hold is not None:
            self._hold.set()
        self._server.shutdown()
        self._server.server_close()

    def reply_token(self, chat: str, *, age_s: float = 0.0) -> str:
        """A reply token as LINE would put in a webhook event for ``chat`` (``age_s`` old already)."""
        token = secrets.token_hex(16)
        with self._lock:
            self._tokens[token] = (chat, time.monotonic() - age_s)
        return token

    def fail_next(self, path: str, status: int, *, times: int = 1, retry_after: float | None = None) -> None:
        """Answer the next ``times`` requests to ``path`` with ``status``."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        with self._lock:
            self._failures.extend(_Failure(path, status, headers) for _ in range(times))

    def of(self, kind: str) -> list[Sent]:
        with self._lock:
            return [s for s in self.sent if s.kind == kind]

    def answers_to(self, chat: str) -> list[Sent]:
        """Replies and pushes that reached ``chat``."""
        with self._lock:
            return [s for s in self.sent if s.kind in ("reply", "push") and s.to == chat]

    def add_content(self, message_id: str, data: bytes, content_type: str = "image/jpeg") -> None:
        """What ``GET /v2/bot/message/{message_id}/content`` answers (an image a member sent)."""
        with self._lock:
            self.contents[message_id] = (data, content_type)

    def _content(self, path: str, headers: dict[str, str]) -> tuple[bytes, str] | None:
        with self._lock:
            self.requests.append((path, headers))
            if headers.get("authorization") != f"Bearer {self.token}":
                return None
            parts = path.split("/")  # /v2/bot/message/{id}/content
            if len(parts) == 6 and parts[1:4] == ["v2", "bot", "message"] and parts[5] == "content":
                return self.contents.get(parts[4])
            return None

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append((path, headers))
            if headers.get("authorization") != f"Bearer {self.token}":
                return 401, {"message": "Authentication failed. Confirm that the access token is valid."}
            for failure in list(self._failures):
                if failure.path == path:
                    self._failures.remove(failure)
                    return failure.status, {"message": "scripted failure", "_headers": failure.headers}
            if path == REPLY:
                found = self._tokens.pop(str(body.get("replyToken")), None)
                if found is None or time.monotonic() - found[1] > self.reply_ttl_s:
                    return 400, {"message": "Invalid reply token"}
                self.sent.append(Sent("reply", found[0], list(body.get("messages", []))))
                return 200, {"sentMessages": [{"id": secrets.token_hex(6)} for _ in body.get("messages", [])]}
            if path == PUSH:
                return self._push(headers, body)
            if path == LOADING:
                self.sent.append(Sent("loading", str(body.get("chatId"))))
                return 202, {}
            if path == BOT_INFO:
                return 200, {"userId": "Ufakebot", "basicId": "@fakebot", "displayName": "shitsuji (fake)"}
            return 404, {"message": "Not found"}

    def hold_pushes(self) -> threading.Event:
        """From now on a push is accepted (recorded, its retry key kept) but not answered until the
        returned event is set: a sender can be killed after LINE took its push and before it heard so."""
        with self._lock:
            self._hold = threading.Event()
            return self._hold

    def _push(self, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """LINE's push rules (called under the lock): a ``to``, 1-5 messages, a UUID retry key used once."""
        messages = body.get("messages")
        if not isinstance(body.get("to"), str) or not body["to"]:
            return 400, {"message": "The request body has 1 error(s)", "details": [{"property": "to"}]}
        if not isinstance(messages, list) or not 1 <= len(messages) <= 5:
            return 400, {"message": "The request body has 1 error(s)", "details": [{"property": "messages"}]}
        key = headers.get("x-line-retry-key")
        if key is not None:
            try:
                uuid.UUID(key)
            except ValueError:
                return 400, {"message": "The value for the 'X-Line-Retry-Key' header is invalid"}
            if key in self._keys:
                return 409, {"message": "The retry key is already accepted", "sentMessages": []}
            self._keys.add(key)
        self.sent.append(Sent("push", body["to"], list(messages), key))
        return 200, {"sentMessages": [{"id": secrets.token_hex(6)} for _ in messages]}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # api-data.line.me: a message's content; api.line.me: the bot's info
                if self.path == BOT_INFO:  # what `shitsuji doctor` asks
                    self._respond({})
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                found = fake._content(self.path, headers)
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", found[1] if found else "application/json")
                data = found[0] if found else b'{"message":"Not found"}'
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                self._respond(body)

            def _respond(self, body: dict[str, Any]) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, answer = fake._answer(self.path, headers, body)
                hold = fake._hold
                if hold is not None and self.path == PUSH and status == 200:
                    hold.wait(60)  # accepted, but the answer is held back (``hold_pushes``)
                extra = answer.pop("_headers", {})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
