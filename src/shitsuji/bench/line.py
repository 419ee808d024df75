"""Load on the LINE webhook over loopback: signed posts at a steady rate, ack latency and answered jobs/s.

The server is the real app with the LINE channel (``create_app(Backend(...), line=LineApp(...))``:
the signed webhook and the durable inbox) under uvicorn in a separate process, with the worker
in a process beside it as ``shitsuji serve`` runs it (``--worker thread``/``loop`` for the others), over a throw-away database with one household of ``senders`` members, each linked to
a LINE user id. The model is a ``ScriptedModel`` that answers at once, echoing the message, so
what is timed is our stack: signature check, storing the event, the worker's turn (routing,
recall, prompt, loop, saving the conversation) and the reply through the real ``line-bot-sdk``
to a ``FakeLineAPI`` in this process.

Each round posts ``rate`` × ``seconds`` events (one per post, senders in turn, each with a
fresh reply token), each post on schedule whatever the earlier ones are doing; an ack is the
webhook's 200. The round ends when every event was answered or ``DRAIN_TIMEOUT_S`` passed.
Figures per round: ack p50/p99 as the poster sees them and as the server timed its
handling (``server_ack_*``: from the request's arrival in the app to the end of its answer,
so the client's own scheduling on a busy machine is left out), posts refused, events answered (``lost``: never answered;
``duplicated``: answered more than once) and jobs/s (answers over the time from the first post
to the last answer). The result is the median of ``repeats`` rounds.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ._common import percentile
from .web import _stop as stop_server
from .web import _wait_until_up as wait_until_up

SECRET = "bench-line-secret"
TOKEN = "bench-line-token"
HOUSEHOLD = "bench"
DRAIN_TIMEOUT_S = 120.0


def _user(n: int) -> str:
    return "U" + f"{n:032x}"


def _echo(request: Any) -> Any:
    from ..llm import text_response

    if request.max_tokens == 5:  # the router
        return text_response("chat")
    content = request.messages[-1]["content"]
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    said = next((b["text"] for b in reversed(blocks) if b.get("type") == "text"), "")
    return text_response(f"ok {said}")


def serve(db: Path, senders: int, fake_url: str, concurrency: int, worker: str) -> None:
    """The server process: a linked household, the app with the LINE channel, its port on stdout."""
    import socket

    import uvicorn

    from ..household import Butler, HouseholdStore
    from ..line import LineApp, LineLinks, LineSettings
    from ..llm import ScriptedModel
    from ..memory import HashEmbedder, MemoryEngine, open_store
    from ..store import database
    from ..web import Backend, create_app

    members = [f"m{n}" for n in range(senders)]
    store = HouseholdStore(database(db))
    store.create(HOUSEHOLD, members)
    store.close()
    links = LineLinks(database(db))
    for n, member in enumerate(members):
        links.redeem(_user(n), links.new_code(HOUSEHOLD, member))
    links.close()

    def make_butler() -> Butler:
        return Butler(database(db), MemoryEngine(open_store(db), HashEmbedder()), ScriptedModel(_echo))

    butler = make_butler()
    settings = LineSettings(SECRET, TOKEN, fake_url, 5000.0)
    if worker == "process":  # `serve --no-worker` beside `shitsuji worker`
        line = LineApp(butler, settings, run_worker=False)
        _worker_process(db, settings, concurrency, make_butler)
    else:  # `serve`: its own thread ("thread", as `shitsuji serve` runs it) or the app's loop ("loop")
        own = make_butler if worker == "thread" else None
        line = LineApp(butler, settings, concurrency=concurrency, worker_butler=own)
    sock = socket.socket()
    # asyncio sets TCP_NODELAY only on sockets it made itself (proto IPPROTO_TCP); without it, Nagle and
    # delayed ACKs add ~40 ms to every small answer (`shitsuji serve` lets uvicorn make its socket)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    app = create_app(Backend(butler), line=line)
    config = uvicorn.Config(_timed(app), log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def _timed(app: Any) -> Any:
    """The app, timing each webhook call inside the server (from the request's arrival in the app to
    the end of its answer); ``GET /bench/acks`` hands over the times so far and forgets them."""
    import json as _json

    times: list[float] = []

    async def timed(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/bench/acks":
            body = _json.dumps(times).encode()
            times.clear()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        start = time.perf_counter()
        await app(scope, receive, send)
        if scope["type"] == "http" and scope["path"] == "/line/webhook":
            times.append((time.perf_counter() - start) * 1000)

    return timed


def _worker_process(db: Path, settings: Any, concurrency: int, make_butler: Any) -> None:
    """Fork a process that runs a LINE worker alone, like `shitsuji worker`."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    context.Process(target=_run_worker, args=(settings, concurrency, make_butler), daemon=True).start()


def _run_worker(settings: Any, concurrency: int, make_butler: Any) -> None:
    from ..line import LineApp

    parent = os.getppid()

    def orphaned() -> None:  # the server went (even by SIGKILL): so does its worker
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True).start()
    line = LineApp(make_butler(), settings, concurrency=concurrency)
    asyncio.run(line.worker.run(asyncio.Event()))


def _sign(body: bytes) -> str:
    return base64.b64encode(hmac.new(SECRET.encode(), body, hashlib.sha256).digest()).decode()


async def _round(
    url: str, fake: Any, *, rate: float, seconds: float, senders: int, tag: str
) -> dict[str, Any]:
    import httpx

    total = int(rate * seconds)
    acks: list[float] = []
    refused = 0

    async def post(client: httpx.AsyncClient, i: int) -> None:
        nonlocal refused
        user = _user(i % senders)
        event = {
            "type": "message",
            "mode": "active",
            "timestamp": int(time.time() * 1000),
            "webhookEventId": f"{tag}-{i:08d}",
            "deliveryContext": {"isRedelivery": False},
            "replyToken": fake.reply_token(user),
            "source": {"type": "user", "userId": user},
            "message": {"id": str(i), "type": "text", "text": f"bench {tag}-{i}", "quoteToken": "q"},
        }
        body = json.dumps({"destination": "Ubench", "events": [event]}).encode()
        start = time.perf_counter()
        answer = await client.post("/line/webhook", content=body, headers={"X-Line-Signature": _sign(body)})
        acks.append((time.perf_counter() - start) * 1000)
        refused += answer.status_code != 200

    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    timeout = httpx.Timeout(60.0, pool=None)  # a stall is measured, not turned into an error
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
        started = time.perf_counter()
        tasks = []
        for i in range(total):
            delay = started + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(post(client, i)))
        await asyncio.gather(*tasks)
    counts: Counter[str] = Counter()
    last_answer = time.perf_counter()
    deadline = time.perf_counter() + DRAIN_TIMEOUT_S
    while time.perf_counter() < deadline:
        counts = Counter(
            t.removeprefix("ok bench ") for s in fake.of("reply") + fake.of("push") for t in s.texts()
        )
        if sum(1 for key in counts if key.startswith(tag)) >= total:
            last_answer = time.perf_counter()
            break
        await asyncio.sleep(0.05)
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        inside = (await client.get("/bench/acks")).json()
    mine = {k: v for k, v in counts.items() if k.startswith(tag)}
    elapsed = last_answer - started
    return {
        "posts": total,
        "refused": refused,
        "ack_p50_ms": round(percentile(acks, 50), 2),
        "ack_p99_ms": round(percentile(acks, 99), 2),
        "server_ack_p50_ms": round(percentile(inside, 50), 2),
        "server_ack_p99_ms": round(percentile(inside, 99), 2),
        "answered": len(mine),
        "lost": total - len(mine),
        "duplicated": sum(v - 1 for v in mine.values()),
        "jobs_per_s": round(len(mine) / elapsed, 1) if elapsed > 0 else 0.0,
    }


async def _run(
    tmp: Path,
    *,
    rate: float,
    seconds: float,
    senders: int,
    repeats: int,
    concurrency: int,
    worker: str,
    progress: Any,
) -> dict[str, Any]:
    from ..line import FakeLineAPI

    with FakeLineAPI(TOKEN) as fake:
        log = (tmp / "server.log").open("w", encoding="utf-8")
        command = [
            *(sys.executable, "-m", "shitsuji.bench.line"),
            *(str(tmp / "line.db"), str(senders), fake.url, str(concurrency), worker),
        ]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log, text=True, env=dict(os.environ)
        )
        try:
            url = await wait_until_up(process, tmp)
            await _round(url, fake, rate=rate, seconds=1, senders=senders, tag="warm")
            rounds = []
            for n in range(repeats):
                rounds.append(
                    await _round(url, fake, rate=rate, seconds=seconds, senders=senders, tag=f"r{n}")
                )
                if progress:
                    progress(f"round {n + 1}/{repeats}: {rounds[-1]}")
        finally:
            stop_server(process)
            log.close()
    keys = ("ack_p50_ms", "ack_p99_ms", "server_ack_p50_ms", "server_ack_p99_ms", "jobs_per_s")
    summary: dict[str, Any] = {k: statistics.median(r[k] for r in rounds) for k in keys}
    summary |= {k: sum(r[k] for r in rounds) for k in ("posts", "refused", "answered", "lost", "duplicated")}
    return {
        "rate": rate,
        "seconds": seconds,
        "senders": senders,
        "concurrency": concurrency,
        "worker": worker,
        "repeats": repeats,
        "median": summary,
        "rounds": rounds,
    }


def run_line_bench(
    *,
    rate: float = 200.0,
    seconds: float = 10.0,
    senders: int = 20,
    repeats: int = 3,
    concurrency: int = 4,
    worker: str = "process",
    progress: Any = None,
) -> dict[str, Any]:
    """Figures for ``shitsuji bench line`` (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-line-") as tmp:
        return asyncio.run(
            _run(
                Path(tmp),
                rate=rate,
                seconds=seconds,
                senders=senders,
                repeats=repeats,
                concurrency=concurrency,
                worker=worker,
                progress=progress,
            )
        )


if (
    __name__ == "__main__"
):  # the server process: python -m shitsuji.bench.line DB SENDERS FAKE_URL CONCURRENCY WORKER
    serve(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5])
