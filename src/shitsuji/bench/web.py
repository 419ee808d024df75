"""Load on the web app over loopback: concurrent signed-in sessions chatting through the real stack.

The server is the real app (``create_app(Backend(...))``) under uvicorn in a separate
process (client and server do not share a GIL) on a free 127.0.0.1 port, over a
throw-away database with one household of ``sessions`` members, each with a password. The
model is a ``ScriptedModel`` that answers at once — the router says ``chat`` or ``task``;
every ``tool_every``-th message makes the main model call ``list_shopping_items`` before it
answers — so what is timed is our stack: HTTP, the session and CSRF checks, the turn
(routing, recall, prompt, loop, saving the conversation) and the SSE stream, not a model.

Each session signs in (``POST /api/session``: cookie + CSRF token), starts a conversation
and sends ``requests`` messages one after another (``POST /api/chat``), reading each event
stream to its end. Measured side by side in the same run, each phase ``repeats`` times
(figures are medians over the repeats, error counts are totals):

- ``http_chat``: the above;
- ``direct_chat``: the same turns through ``Backend.chat`` in this process, no HTTP (same
  number of concurrent sessions, its own database set up the same way);
- ``http_health``: ``GET /api/health`` over HTTP, same sessions and count (the transport floor).

The model answers without ever waiting, so in-process turns interleave only where a tool
runs: most direct latencies are the bare service time of a turn (a tool turn also waits for
other sessions' turns), while a request over HTTP queues behind the other sessions' turns on
the server's one event loop. Compare throughputs for the cost of HTTP; latencies over HTTP
are what a person waits at that load.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._offload import bound_threads, current_threads, use_threads
from ..agent import Failed
from ..agent._modes import ROUTER_PROMPT
from ..context import SUMMARY_PROMPT
from ..errors import ShitsujiError
from ..household import Butler, HouseholdStore
from ..llm import Message, ModelRequest, ModelResponse, ScriptedModel, text_response, tool_use_response
from ..memory import MemoryEngine, load_embedder, open_store
from ..store import database
from ._beside import (
    EXTRACTION_EVERY_S,
    add_lag_route,
    fact_reply,
    lag_figures,
    line_app,
    post_line_events,
    take_lag,
)
from ._common import percentile

if TYPE_CHECKING:
    import httpx

    from ..web import Backend, Member

Progress = Callable[[str], None]

HOUSEHOLD = "bench"
PASSWORD = "bench-password-執事"
TOOL_WORDS = "買い物リスト"
CHAT_LINES = (
    "おはよう、今日もよろしくね",
    "今日の夕飯は何がいいかな",
    "ありがとう、助かったよ",
    "週末は天気がいいといいね",
    "ちょっと疲れたなあ",
)
REPLY = "かしこまりました。ほかにもお手伝いできることがあれば、いつでもお申し付けください。"
SUMMARY = "これまでの要約：日々の雑談と買い物リストの確認。"
START_TIMEOUT_S = 60.0
SIGN_IN_BATCH = 4


def member_names(n: int) -> list[str]:
    return [f"m{i:03d}" for i in range(1, n + 1)]


def message(i: int, tool_every: int) -> str:
    """The ``i``-th message of a session: every ``tool_every``-th asks for the shopping list."""
    if tool_every and i % tool_every == tool_every - 1:
        return f"{TOOL_WORDS}を見せて（{i}）"
    return f"{CHAT_LINES[i % len(CHAT_LINES)]}（{i}）"


def _words(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def _has_tool_results(message: Message) -> bool:
    content = message["content"]
    return not isinstance(content, str) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


class InstantModel:
    """The script: a function of the request that answers at once, like a model that costs nothing."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.seen: list[ModelRequest] | None = None

    def __call__(self, request: ModelRequest) -> ModelResponse:
        if self.seen is not None:  # the scripted model keeps every request; a load run must not
            self.seen.clear()
        if (facts := fact_reply(request)) is not None:
            return facts
        system = request.system[0].get("text", "") if request.system else ""
        last = request.messages[-1] if request.messages else {"role": "user", "content": ""}
        if system == ROUTER_PROMPT:
            return text_response("task" if TOOL_WORDS in _words(last["content"]) else "chat")
        if system.startswith(SUMMARY_PROMPT[:40]):
            return text_response(SUMMARY)
        if request.tools and not _has_tool_results(last) and TOOL_WORDS in _words(last["content"]):
            return tool_use_response((f"toolu_{next(self._ids)}", "list_shopping_items", {}))
        return text_response(REPLY)


def scripted_model() -> ScriptedModel:
    script = InstantModel()
    model = ScriptedModel(script)
    script.seen = model.requests
    return model


def make_backend(db: Path, members: int, embedder: str, *, beside: bool = False) -> Backend:
    """One household of ``members`` members (password ``PASSWORD``) and the scripted model; ``beside``:
    memory extraction after every turn."""
    from ..memory import ExtractionSettings
    from ..web import Backend

    store = HouseholdStore(database(db))
    store.create(HOUSEHOLD, member_names(members))
    store.close()
    memory = MemoryEngine(open_store(db), load_embedder(embedder))
    extraction = ExtractionSettings() if beside else None
    backend = Backend(Butler(database(db), memory, scripted_model(), panels=True, extraction=extraction))
    for user in member_names(members):
        backend.accounts.set_password(HOUSEHOLD, user, PASSWORD)
    return backend


def close_backend(backend: Backend) -> None:
    backend.close()
    backend.memory.store.close()


# -- the server process -------------------------------------------------------


def serve(db: Path, members: int, embedder: str, beside: bool, threads: int = 0) -> None:
    """Run the app on a free loopback port; the port is the first line printed. Stops on SIGTERM.
    ``beside``: with the LINE webhook and extraction every half second (``_beside``); ``threads``:
    worker threads for blocking work (0: the app's own)."""
    import socket

    import uvicorn

    from ..web import create_app

    if threads:
        use_threads(threads)
    backend = make_backend(db, members, embedder, beside=beside)
    line = line_app(backend) if beside else None
    app = create_app(backend, line=line, extraction_every_s=EXTRACTION_EVERY_S)
    add_lag_route(app)
    sock = socket.socket(
        socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP
    )  # TCP_NODELAY needs proto set
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    try:  # uvicorn re-raises SIGTERM after a clean shutdown, so this only runs when it stops otherwise
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        if line is not None:
            line.close()
        close_backend(backend)


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str


def _start_server(
    tmp: Path, members: int, embedder: str, beside: bool, threads: int
) -> tuple[subprocess.Popen[str], IO[str]]:
    log = (tmp / "server.log").open("w", encoding="utf-8")
    server = [str(tmp / "server.db"), str(members), embedder, "beside" if beside else "alone", str(threads)]
    command = [sys.executable, "-m", "shitsuji.bench.web", *server]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=dict(os.environ))
    return process, log


class BenchServerError(ShitsujiError):
    """The bench's server process did not start or did not let a session in."""


def _server_failed(tmp: Path, what: str) -> BenchServerError:
    log = (tmp / "server.log").read_text(encoding="utf-8", errors="replace").strip()
    return BenchServerError(f"the bench server {what}: {log[-2000:] or '(no output)'}")


async def _wait_until_up(process: subprocess.Popen[str], tmp: Path) -> str:
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_TIMEOUT_S)
    except TimeoutError:
        line = ""
    if not line.strip().isdigit():
        raise _server_failed(tmp, "did not start")
    url = f"http://127.0.0.1:{int(line)}"
    import httpx

    deadline = time.monotonic() + START_TIMEOUT_S
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        while True:
            try:
                if (await client.get("/api/health")).status_code == 200:
                    return url
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise _server_failed(tmp, "did not answer")
            await asyncio.sleep(0.05)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()


# -- timing -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    total_s: float
    first_text_s: float | None
    ok: bool
    problem: str = ""


@dataclass
class Phase:
    samples: list[Sample] = field(default_factory=list)
    wall_s: float = 0.0


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _figures(phase: Phase) -> dict[str, Any]:
    totals = [s.total_s for s in phase.samples if s.ok]
    firsts = [s.first_text_s for s in phase.samples if s.ok and s.first_text_s is not None]
    out: dict[str, Any] = {
        "requests": len(phase.samples),
        "errors": sum(not s.ok for s in phase.samples),
        "p50_ms": _ms(percentile(totals, 50)),
        "p99_ms": _ms(percentile(totals, 99)),
        "per_s": round(len(phase.samples) / phase.wall_s, 1) if phase.wall_s else 0.0,
    }
    if firsts:
        out["first_text_p50_ms"] = _ms(percentile(firsts, 50))
        out["first_text_p99_ms"] = _ms(percentile(firsts, 99))
    return out


def _medians(runs: Sequence[Phase]) -> dict[str, Any]:
    """Each figure's median over the repeats; requests and errors are totals."""
    per_run = [_figures(run) for run in runs]
    out: dict[str, Any] = {}
    for key in per_run[0]:
        values = [r[key] for r in per_run if key in r]
        if key in ("requests", "errors"):
            out[key] = sum(values)
        else:
            out[key] = round(statistics.median(values), 3 if key.endswith("_ms") else 1)
    out["per_s_each_run"] = [r["per_s"] for r in per_run]
    out["problems"] = sorted({s.problem for run in runs for s in run.samples if s.problem})[:5]
    return out


async def _concurrently(jobs: Sequence[Callable[[], Awaitable[list[Sample]]]]) -> Phase:
    start = time.perf_counter()
    done = await asyncio.gather(*(job() for job in jobs))
    return Phase([s for samples in done for s in samples], time.perf_counter() - start)


# -- the client ---------------------------------------------------------------


@dataclass
class Session:
    client: httpx.AsyncClient
    user: str
    csrf: str = ""
    conversation: str = ""


async def _sign_in(session: Session) -> float:
    start = time.perf_counter()
    response = await session.client.post(
        "/api/session", json={"user": session.user, "password": PASSWORD, "household": HOUSEHOLD}
    )
    if response.status_code != 200:
        raise BenchServerError(f"sign-in of {session.user} failed: {response.status_code} {response.text}")
    session.csrf = response.json()["csrf"]
    return time.perf_counter() - start


async def _new_conversation(session: Session) -> None:
    response = await session.client.post("/api/conversations", headers={"X-CSRF-Token": session.csrf})
    if response.status_code != 200:
        raise BenchServerError(f"new conversation failed: {response.status_code} {response.text}")
    session.conversation = response.json()["id"]


async def _chat_once(session: Session, text: str) -> Sample:
    import httpx

    start = time.perf_counter()
    first: float | None = None
    done, problem = False, ""
    body = {"message": text, "conversation": session.conversation}
    try:
        async with session.client.stream(
            "POST", "/api/chat", json=body, headers={"X-CSRF-Token": session.csrf}
        ) as response:
            if response.status_code != 200:
                await response.aread()
                problem = f"HTTP {response.status_code}: {response.text[:200]}"
            else:
                event = ""
                async for line in response.aiter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                        if event == "text" and first is None:
                            first = time.perf_counter() - start
                        done = done or event == "done"
                    elif event == "error" and line.startswith("data: "):
                        problem = f"error event: {line[6:206]}"
    except httpx.HTTPError as exc:
        problem = f"{type(exc).__name__}: {exc}"
    ok = done and not problem
    if not ok and not problem:
        problem = "the stream ended without a done event"
    return Sample(time.perf_counter() - start, first, ok, problem)


async def _health_once(session: Session) -> Sample:
    import httpx

    start = time.perf_counter()
    try:
        response = await session.client.get("/api/health")
        ok, problem = response.status_code == 200, "" if response.status_code == 200 else response.text[:200]
    except httpx.HTTPError as exc:
        ok, problem = False, f"{type(exc).__name__}: {exc}"
    return Sample(time.perf_counter() - start, None, ok, problem)


async def _http_chat(sessions: Sequence[Session], requests: int, tool_every: int) -> Phase:
    await asyncio.gather(*(_new_conversation(s) for s in sessions))  # each run starts fresh, untimed

    def job(session: Session) -> Callable[[], Awaitable[list[Sample]]]:
        async def run() -> list[Sample]:
            return [await _chat_once(session, message(i, tool_every)) for i in range(requests)]

        return run

    return await _concurrently([job(s) for s in sessions])


async def _http_health(sessions: Sequence[Session], requests: int) -> Phase:
    def job(session: Session) -> Callable[[], Awaitable[list[Sample]]]:
        async def run() -> list[Sample]:
            return [await _health_once(session) for _ in range(requests)]

        return run

    return await _concurrently([job(s) for s in sessions])


async def _direct_chat(backend: Backend, members: Sequence[Member], requests: int, tool_every: int) -> Phase:
    conversations = [(await backend.new_conversation(m)).id for m in members]

    async def one(member: Member, conversation: str, text: str) -> Sample:
        start = time.perf_counter()
        first: float | None = None

        def emit(event: str, data: dict[str, Any]) -> None:
            nonlocal first
            if event == "text" and first is None:
                first = time.perf_counter() - start

        try:
            outcome = await backend.run(member, backend.begin(member, text, conversation), emit)
        except ShitsujiError as exc:
            return Sample(time.perf_counter() - start, first, False, f"{type(exc).__name__}: {exc}")
        if isinstance(outcome, Failed):
            return Sample(time.perf_counter() - start, first, False, outcome.message)
        return Sample(time.perf_counter() - start, first, True)

    def job(member: Member, conversation: str) -> Callable[[], Awaitable[list[Sample]]]:
        async def run() -> list[Sample]:
            return [await one(member, conversation, message(i, tool_every)) for i in range(requests)]

        return run

    return await _concurrently([job(m, c) for m, c in zip(members, conversations, strict=True)])


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else 0.0


async def _run(
    tmp: Path,
    *,
    sessions: int,
    requests: int,
    repeats: int,
    tool_every: int,
    embedder: str,
    beside: bool,
    threads: int,
    progress: Progress | None,
) -> dict[str, Any]:
    import httpx

    from ..web import Member

    note = progress or (lambda _: None)
    if threads:
        use_threads(threads)
    bound_threads()  # the in-process turns' blocking work, as in the server
    process, log = _start_server(tmp, sessions, embedder, beside, threads)
    backend: Backend | None = None
    try:
        backend = make_backend(tmp / "direct.db", sessions, embedder)  # while the server starts
        url = await _wait_until_up(process, tmp)
        note(f"server up at {url}; signing in {sessions} sessions")
        members = [Member(HOUSEHOLD, user) for user in member_names(sessions)]
        clients = [httpx.AsyncClient(base_url=url, timeout=120) for _ in range(sessions)]
        try:
            signed = [
                Session(client, user) for client, user in zip(clients, member_names(sessions), strict=True)
            ]
            # an attempt counts against the address until its password checks out (issue 11): sign in
            # four at a time from this one address, under the limit of five
            sign_ins: list[float] = []
            for start in range(0, len(signed), SIGN_IN_BATCH):
                batch = signed[start : start + SIGN_IN_BATCH]
                sign_ins += await asyncio.gather(*(_sign_in(s) for s in batch))
            runs: dict[str, list[Phase]] = {"http_chat": [], "direct_chat": [], "http_health": []}
            lag: list[float] = []
            line: list[dict[str, Any]] = []
            for r in range(repeats):
                note(f"run {r + 1}/{repeats}: {sessions} sessions × {requests} requests")
                chat, beside_figures, lagged = await _chat_beside(
                    clients[0], signed, requests, tool_every, beside, r
                )
                runs["http_chat"].append(chat)
                lag += lagged
                line += [beside_figures] if beside_figures else []
                runs["direct_chat"].append(await _direct_chat(backend, members, requests, tool_every))
                runs["http_health"].append(await _http_health(signed, requests))
        finally:
            for client in clients:
                await client.aclose()
    finally:
        await asyncio.to_thread(_stop, process)
        log.close()
        if backend is not None:
            close_backend(backend)
    http, direct, health = (_medians(runs[k]) for k in ("http_chat", "direct_chat", "http_health"))
    return {
        "sessions": sessions,
        "requests_per_session": requests,
        "repeats": repeats,
        "tool_every": tool_every,
        "embedder": embedder,
        "worker_threads": current_threads(),
        "server": "uvicorn, own process, 127.0.0.1",
        "sign_in_p50_ms": _ms(percentile(sign_ins, 50)),
        "sign_in_max_ms": _ms(max(sign_ins)),
        "http_chat": http,
        "direct_chat": direct,
        "http_health": health,
        "http_over_direct_p50": _ratio(http["p50_ms"], direct["p50_ms"]),
        "http_share_of_direct_throughput": _ratio(http["per_s"], direct["per_s"]),
        "http_cost_ms_per_request": round(1000 / http["per_s"] - 1000 / direct["per_s"], 3)
        if http["per_s"] and direct["per_s"]
        else 0.0,
        "chat_over_health_p50": _ratio(http["p50_ms"], health["p50_ms"]),
        "beside": "LINE webhook events + extraction every 0.5 s" if beside else "nothing",
        "loop_lag_during_chat": lag_figures(lag),
        "line_webhook": {k: statistics.median(f[k] for f in line) for k in line[0]} if line else None,
    }


async def _chat_beside(
    client: httpx.AsyncClient,
    sessions: Sequence[Session],
    requests: int,
    tool_every: int,
    beside: bool,
    run: int,
) -> tuple[Phase, dict[str, Any] | None, list[float]]:
    """The chat phase, with LINE events posted meanwhile (``beside``), and the loop's lateness throughout."""
    await take_lag(client)  # starts the probe; forgets what came before
    done = asyncio.Event()
    line = asyncio.create_task(post_line_events(client, done, f"run{run}")) if beside else None
    try:
        chat = await _http_chat(sessions, requests, tool_every)
    finally:
        done.set()
        figures = await line if line is not None else None
    return chat, figures, await take_lag(client)


def run_web_bench(
    *,
    sessions: int = 16,
    requests: int = 25,
    repeats: int = 3,
    tool_every: int = 4,
    embedder: str = "hash",
    beside: bool = True,
    threads: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Figures for ``shitsuji bench web`` (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-") as tmp:
        return asyncio.run(
            _run(
                Path(tmp),
                sessions=sessions,
                requests=requests,
                repeats=repeats,
                tool_every=tool_every,
                embedder=embedder,
                beside=beside,
                threads=threads,
                progress=progress,
            )
        )


if (
    __name__ == "__main__"
):  # the server process: python -m shitsuji.bench.web DB MEMBERS EMBEDDER SIDE THREADS
    serve(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "beside", int(sys.argv[5]))
