"""A local Messages API that caches by prefix the way the real one does, for ``bench cache``.

The real API hashes the request in order — tools, system, messages — up to each ``cache_control``
breakpoint. A request reads the longest prefix some earlier request wrote (looking back up to 20 blocks
before each breakpoint), writes the rest up to its last breakpoint, and bills what follows as plain
input; a prefix shorter than the model's minimum is neither read nor written. This fake does the same
with our token estimate, and answers like a butler: ``task`` to the router, a short summary to the
summariser, and in chat turns a read tool every other turn and then a sentence.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from ..llm import LoopbackServer, QuietHandler, write_sse
from ..llm._tokens import estimate_tokens

LOOKBACK_BLOCKS = 20
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Billed:
    kind: str  # "turn", "route" or "fold"
    input_tokens: int
    cache_read: int
    cache_write: int
    output_tokens: int


def _segments(request: dict[str, Any]) -> list[tuple[str, int, bool]]:
    """(content key, tokens, breakpoint here) for every block in cache order."""
    out: list[tuple[str, int, bool]] = []

    def add(block: Any, role: str = "") -> None:
        marked = isinstance(block, dict) and "cache_control" in block
        plain = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
        key = role + json.dumps(plain, ensure_ascii=False, sort_keys=True)
        text = plain.get("text") if isinstance(plain, dict) else None
        out.append((key, estimate_tokens(text if isinstance(text, str) else key) + 3, marked))

    for tool in request.get("tools", ()):
        add(tool)
    system = request.get("system", ())
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        add(block)
    for message in request.get("messages", ()):
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            add(block, message["role"])
    return out


class PrefixCache:
    """Prefix hashes written by earlier requests (no expiry: a benchmark's turns are minutes apart)."""

    def __init__(self, min_tokens: int) -> None:
        self.min_tokens = min_tokens
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def bill(self, request: dict[str, Any]) -> tuple[int, int, int]:
        """(plain input, read from the cache, written to the cache) for this request."""
        segments = _segments(request)
        hashes, tokens, running, digest = [], [], 0, hashlib.sha256()
        for key, count, _ in segments:
            digest.update(key.encode())
            hashes.append(digest.copy().hexdigest())
            running += count
            tokens.append(running)
        points = [i for i, (_, _, marked) in enumerate(segments) if marked]
        total = running
        with self._lock:
            read_end = -1
            for point in points:
                for i in range(point, max(point - LOOKBACK_BLOCKS, -1), -1):
                    if hashes[i] in self._written:
                        read_end = max(read_end, i)
                        break
            cacheable = [p for p in points if tokens[p] >= self.min_tokens]
            for point in cacheable:
                self._written.add(hashes[point])
        read = tokens[read_end] if read_end >= 0 else 0
        last = max(cacheable, default=-1)
        written = tokens[last] - read if last > read_end else 0
        return total - read - written, read, written


class CachingMessagesAPI(LoopbackServer):
    """Answers POST /v1/messages over loopback; ``billed`` lists each request's usage."""

    def __init__(self, *, min_tokens: int = 1024) -> None:
        self.cache = PrefixCache(min_tokens)
        self.billed: list[Billed] = []
        self._turns = 0
        super().__init__(self._handler())

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        plain, read, written = self.cache.bill(request)
        kind, content, stop = self._reply(request)
        output = sum(estimate_tokens(json.dumps(b, ensure_ascii=False)) for b in content)
        self.billed.append(Billed(kind, plain, read, written, output))
        return {
            "id": f"msg_{next(_ids):05d}",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "claude"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": plain,
                "output_tokens": output,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written,
            },
        }

    def _reply(self, request: dict[str, Any]) -> tuple[str, list[dict[str, Any]], str]:
        system = request.get("system", "")
        first = system if isinstance(system, str) else (system[0].get("text", "") if system else "")
        if first.startswith("You keep the running summary"):
            return (
                "fold",
                [{"type": "text", "text": "二人は買い物、予定、支出を執事と管理している。" * 3}],
                "end_turn",
            )
        if not request.get("tools") and request.get("max_tokens", 0) <= 10:
            return "route", [{"type": "text", "text": "task"}], "end_turn"
        last = request["messages"][-1]["content"]
        after_tool = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
        if not after_tool and request.get("tools"):
            self._turns += 1
            if self._turns % 2 == 0:  # every other turn looks something up first
                call = {
                    "type": "tool_use",
                    "id": f"toolu_{next(_ids):05d}",
                    "name": "list_shopping_items",
                    "input": {},
                }
                return "turn", [{"type": "text", "text": "確認します。"}, call], "tool_use"
        reply = "かしこまりました。リストと予定を確認し、必要なものはカードでお知らせします。"
        return "turn", [{"type": "text", "text": reply}], "end_turn"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                message = api.answer(body)
                if body.get("stream"):  # a channel that shows words as they come
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    write_sse(self.wfile, message)
                    return
                data = json.dumps(message).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
