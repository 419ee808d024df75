"""A local fake of the Anthropic Messages API, speaking the real wire protocol over HTTP
(JSON, or server-sent events when the request asks to stream).

Tests script what it answers (messages, errors, silence); the real ``anthropic`` SDK
talks to it, so retries, timeouts and response parsing are the SDK's own. Before the script, it
refuses with 400 what the real API refuses for the request's model (``fake_anthropic_rules``):
a thinking form or tool version the model lacks, a non-strict schema marked strict, a bad image
(one a decoder cannot read, too large, too wide, too many), and a request over 32 MB (413).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from shitsuji.llm import LoopbackServer, ModelResponse, QuietHandler, write_sse

from .fake_anthropic_rules import MAX_REQUEST_BYTES, refusal

_ids = itertools.count(1)


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    gate: threading.Event | None = None  # the answer waits until the test opens it


class FakeMessagesAPI(LoopbackServer):
    """Answers POSTs to ``path`` (the Messages API by default) from a script."""

    def __init__(self, path: str = "/v1/messages") -> None:
        self.path = path
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.refused: list[str] = []
        self._script: deque[Reply] = deque()
        super().__init__(self._handler())

    def reply(
        self, response: ModelResponse, *, delay_s: float = 0.0, gate: threading.Event | None = None
    ) -> None:
        body = {
            "id": f"msg_{next(_ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": response.model or "claude-test",
            "content": response.content,
            "stop_reason": response.stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": response.usage.input_tokens,
                "output_tokens": response.usage.output_tokens,
                "cache_read_input_tokens": response.usage.cache_read_input_tokens,
                "cache_creation_input_tokens": response.usage.cache_creation_input_tokens,
            },
        }
        self._script.append(Reply(200, body, delay_s=delay_s, gate=gate))

    def reply_raw(self, body: dict[str, Any]) -> None:
        """Answer 200 with this JSON body as is (for other wire formats)."""
        self._script.append(Reply(200, body))

    def fail(self, status: int, kind: str, message: str, *, times: int = 1) -> None:
        body = {"type": "error", "error": {"type": kind, "message": message}}
        for _ in range(times):
            # retry-after-ms keeps the SDK's backoff short in tests
            self._script.append(Reply(status, body, headers={"retry-after-ms": "5"}))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                if length > MAX_REQUEST_BYTES:  # refused whole (read and dropped, so the client hears it)
                    while length > 0:
                        length -= len(self.rfile.read(min(length, 1 << 20)) or b"x" * length)
                    error = {
                        "type": "request_too_large",
                        "message": f"Request exceeds {MAX_REQUEST_BYTES} bytes",
                    }
                    self._send(Reply(413, {"type": "error", "error": error}))
                    return
                api.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                api.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.split("?")[0] != api.path:
                    self._send(
                        Reply(
                            404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
                        )
                    )
                    return
                problem = refusal(api.requests[-1])
                if problem is not None:  # the real API refuses before any answer is made
                    api.refused.append(problem)
                    self._send(
                        Reply(
                            400,
                            {"type": "error", "error": {"type": "invalid_request_error", "message": problem}},
                        )
                    )
                    return
                reply = api._script.popleft() if api._script else None
                if reply is None:
                    reply = Reply(
                        500, {"type": "error", "error": {"type": "api_error", "message": "script exhausted"}}
                    )
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.gate is not None:
                    reply.gate.wait(timeout=120)
                if reply.status == 200 and api.requests[-1].get("stream"):
                    self._stream(reply.body)
                else:
                    self._send(reply)

            def _stream(self, message: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                write_sse(self.wfile, message)

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                    pass

        return Handler
