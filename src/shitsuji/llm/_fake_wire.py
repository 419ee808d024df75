"""The wire for local fakes of the Messages API: a loopback HTTP server and the streaming events.

The SDK streams when a channel shows words as they come, so a fake server that stands in for the API
(the test fake, ``bench cache``'s caching fake) must answer a streamed request with these events.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedIOBase
from typing import Any, Self


def sse_events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The Messages streaming events for a complete message: text in small deltas, tool input as JSON."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    yield {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            }
            text = block["text"]
            for i in range(0, len(text), 3):
                yield {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": text[i : i + 3]},
                }
        else:
            yield {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}}
            partial = json.dumps(block.get("input", {}), ensure_ascii=False)
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": partial},
            }
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    yield {"type": "message_stop"}


def write_sse(out: BufferedIOBase, message: dict[str, Any]) -> None:
    """Write ``message`` as the event stream (after the caller sent the 200 and its headers)."""
    for event in sse_events(message):
        out.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
        out.flush()


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (a fake's requests are the test's business)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


class LoopbackServer:
    """An HTTP server on 127.0.0.1 (a free port) in a daemon thread while ``running()``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @contextmanager
    def running(self) -> Iterator[Self]:
        self._thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
