"""What runs beside the chat in ``shitsuji bench web``: LINE webhook events and memory extraction on the
server, and the loop-lag probe that times the server's event loop meanwhile.

A person waits on the web app's one event loop; so do the LINE webhook (whose answer LINE times)
and the extraction loop, in the same process. The server here takes signed LINE events at a steady
rate (stored in its inbox, as ``serve``'s app process does; the worker is another process there)
and extracts a fact from every turn every half second, while ``LoopLag`` samples how late the loop
wakes a 10 ms sleep. ``GET /bench/lag`` starts the probe and hands over its samples since the last call.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import itertools
import json
import time
from typing import TYPE_CHECKING, Any

from ..llm import ModelRequest, ModelResponse, text_response
from ..memory import EXTRACTION_PROMPT
from ._common import percentile

if TYPE_CHECKING:
    import httpx
    from fastapi import FastAPI

    from ..line import LineApp
    from ..web import Backend

SECRET = "bench-web-line-secret"
TOKEN = "bench-web-line-token"
EXTRACTION_EVERY_S = 0.5
LINE_RATE = 20.0  # signed webhook posts per second while the chat runs
_facts = itertools.count(1)


def fact_reply(request: ModelRequest) -> ModelResponse | None:
    """The extraction model's answer (one new fact per turn read), or None for any other request."""
    system = request.system[0].get("text", "") if request.system else ""
    if not system.startswith(EXTRACTION_PROMPT[:40]):
        return None
    fact = f"ベンチの事実その{next(_facts)}：週末は公園を散歩する"
    return text_response(
        json.dumps([{"fact": fact, "category": "misc", "importance": 0.6}], ensure_ascii=False)
    )


def line_app(backend: Backend) -> LineApp:
    """The webhook as ``serve``'s app process has it: events are stored; a worker elsewhere answers them."""
    from ..line import LineApp, LineSettings

    return LineApp(backend.butler, LineSettings(SECRET, TOKEN, "http://127.0.0.1:9"), run_worker=False)


def add_lag_route(app: FastAPI) -> None:
    """``GET /bench/lag``: the probe's samples (seconds late) since the last call; the first call starts it."""
    from ..web._lag import LoopLag

    probe = LoopLag()

    @app.get("/bench/lag", include_in_schema=False)
    async def lag() -> dict[str, list[float]]:
        probe.start()
        return {"samples": probe.take()}


async def take_lag(client: httpx.AsyncClient) -> list[float]:
    response = await client.get("/bench/lag")
    response.raise_for_status()
    samples: list[float] = response.json()["samples"]
    return samples


def lag_figures(samples: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in samples]
    return {
        "samples": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms, default=0.0), 2),
    }


def _sign(body: bytes) -> str:
    return base64.b64encode(hmac.new(SECRET.encode(), body, hashlib.sha256).digest()).decode()


async def post_line_events(client: httpx.AsyncClient, until: asyncio.Event, tag: str) -> dict[str, Any]:
    """Signed LINE message events at ``LINE_RATE`` per second until ``until`` is set: how many, how many
    refused, and the webhook's answer times (LINE waits on them)."""
    acks: list[float] = []
    refused = 0
    started = time.perf_counter()
    for i in itertools.count():
        delay = started + i / LINE_RATE - time.perf_counter()
        if delay > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), delay)
        if until.is_set():
            break
        event = {
            "type": "message",
            "mode": "active",
            "timestamp": int(time.time() * 1000),
            "webhookEventId": f"{tag}-{i:08d}",
            "deliveryContext": {"isRedelivery": False},
            "replyToken": f"r{i}",
            "source": {"type": "user", "userId": f"U{i % 7:032x}"},
            "message": {"id": str(i), "type": "text", "text": f"bench {tag}-{i}", "quoteToken": "q"},
        }
        body = json.dumps({"destination": "Ubench", "events": [event]}).encode()
        start = time.perf_counter()
        answer = await client.post("/line/webhook", content=body, headers={"X-Line-Signature": _sign(body)})
        acks.append((time.perf_counter() - start) * 1000)
        refused += answer.status_code != 200
    return {
        "posts": len(acks),
        "refused": refused,
        "ack_p50_ms": round(percentile(acks, 50), 2),
        "ack_p99_ms": round(percentile(acks, 99), 2),
    }
