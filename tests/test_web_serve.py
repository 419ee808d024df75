"""`shitsuji serve` as a real process: it starts without a model, answers health, and sends a
fresh install to the first-run page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from shitsuji.household import HouseholdStore
from shitsuji.store import database
from shitsuji.web import Accounts

from .pg_support import processes_can_use
from .web_support import HOME, PASSWORD, free_port

READY_S = 180.0  # generous: a loaded machine (CI beside other jobs) starts Python slowly


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "SHITSUJI_"))}
    env.update(SHITSUJI_DB=str(tmp_path / "web.db"), SHITSUJI_EMBEDDER="hash", **more)
    return env


def _serve(env: dict[str, str], *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shitsuji", "serve", *options],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _health(server: subprocess.Popen[str], base: str) -> dict[str, object]:
    """Wait for serve to answer its health check (as long as it keeps running, up to ``READY_S``)."""
    deadline = time.monotonic() + READY_S
    while True:
        try:
            answer: dict[str, object] = httpx.get(f"{base}/api/health", timeout=5).json()
            return answer
        except httpx.TransportError:
            assert server.poll() is None, "serve stopped before it answered"
            assert time.monotonic() < deadline, f"serve did not answer within {READY_S:g} s"
            time.sleep(0.1)


def test_serve_starts_offline_and_a_fresh_database_goes_to_setup(tmp_path: Path) -> None:
    port = free_port()
    server = _serve(_env(tmp_path), "--port", str(port))
    base = f"http://127.0.0.1:{port}"
    try:
        health = _health(server, base)
        assert health["ok"] is True and health["model_ready"] is False
        assert isinstance(health["warming_up"], bool)
        first = httpx.get(f"{base}/", follow_redirects=True)
        assert first.url.path == "/setup" and "<form" in first.text
        assert httpx.get(f"{base}/api/memories", params={"q": "ひみつ"}).status_code == 401
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert "no household yet" in out and "chat is off" in out and f"127.0.0.1:{port}" in out
    assert f"http://127.0.0.1:{port}/setup" in out  # the first-run hint names the web setup page
    # the request log: one line per request, the path without its query (a search holds a member's words)
    assert "GET /api/health 200" in out and "GET /setup 200" in out and "GET /api/memories 401" in out
    assert "ひみつ" not in out and "q=" not in out


def test_serve_stops_soon_after_ctrl_c_with_a_stream_open_and_logs_json(tmp_path: Path) -> None:
    """An open live-update stream never ends by itself: Ctrl-C must not wait for it (it took 4-14 s)."""
    port = free_port()
    store = HouseholdStore(database(tmp_path / "web.db"))
    store.create(HOME, ["wife"])
    store.close()
    accounts = Accounts(database(tmp_path / "web.db"))
    accounts.set_password(HOME, "wife", PASSWORD)
    accounts.close()
    server = _serve(_env(tmp_path), "--port", str(port), "--log-format", "json")
    base = f"http://127.0.0.1:{port}"
    try:
        _health(server, base)
        with httpx.Client(base_url=base, timeout=30) as client:
            _sign_in(client, "wife")
            with client.stream("GET", "/api/events") as stream:
                assert next(stream.iter_lines()) == "event: hello"
                server.send_signal(signal.SIGINT)
                stopped = time.monotonic()
                server.wait(timeout=60)
                took = time.monotonic() - stopped
    finally:
        if server.poll() is None:
            server.kill()
        out, _ = server.communicate(timeout=60)
    assert server.returncode == 0, out
    assert took < 30, took  # generous here; `docs/benchmarks.md` has the figure (under 2 s)
    logged = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    requests = [e for e in logged if e["logger"] == "shitsuji.access"]
    assert {(e["method"], e["path"], e["status"]) for e in requests} >= {
        ("GET", "/api/health", 200),
        ("POST", "/api/session", 200),
        ("GET", "/api/events", 200),
    }
    assert all(isinstance(e["ms"], float) and e["time"] and e["level"] == "info" for e in requests)
    assert PASSWORD not in out


def children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(cmdline)
    return found


def test_serve_with_line_runs_its_worker_process_and_stops_it(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "SHITSUJI_"))}
    env.update(
        SHITSUJI_DB=str(tmp_path / "web.db"),
        SHITSUJI_EMBEDDER="hash",
        SHITSUJI_LINE_CHANNEL_SECRET="test-secret",
        SHITSUJI_LINE_CHANNEL_TOKEN="test-token",
        SHITSUJI_LINE_API_URL=f"http://127.0.0.1:{free_port()}",  # nothing listens: nothing is sent
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "shitsuji", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + READY_S
        while not any("shitsuji worker" in c for c in children(server.pid)):
            assert server.poll() is None and time.monotonic() < deadline, "serve started no worker"
            time.sleep(0.1)
        while True:
            try:
                unsigned = httpx.post(f"http://127.0.0.1:{port}/line/webhook", content=b"{}", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        assert unsigned.status_code == 400  # the webhook is there, and checks the signature
        [worker] = [c for c in children(server.pid) if "shitsuji worker" in c]
        assert worker.split()[-1] == "worker"
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert "answered by a worker process" in out
    assert not [c for c in children(server.pid) if "shitsuji worker" in c]  # stopped with serve


def test_workers_need_postgresql(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "SHITSUJI_"))}
    env.update(SHITSUJI_DB=str(tmp_path / "web.db"), SHITSUJI_EMBEDDER="hash")
    refused = subprocess.run(
        [sys.executable, "-m", "shitsuji", "serve", "--port", str(free_port()), "--workers", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "--workers 2 needs PostgreSQL" in refused.stderr
    assert "shitsuji migrate --to" in refused.stderr and "Traceback" not in refused.stderr


def _sign_in(client: httpx.Client, user: str) -> str:
    signed = client.post("/api/session", json={"user": user, "password": PASSWORD, "household": HOME})
    assert signed.status_code == 200, signed.text
    return str(signed.json()["csrf"])


def test_serve_with_workers_runs_that_many_app_processes_over_postgresql(pg_url: str) -> None:
    """Two app processes on one port, one LINE worker; a session and a change made through one
    connection work on any other, and a stream hears the change at once (NOTIFY, not the poll)."""
    processes_can_use(pg_url)
    store = HouseholdStore(database(pg_url))
    store.create(HOME, ["wife", "husband"])
    store.close()
    accounts = Accounts(database(pg_url))
    for user in ("wife", "husband"):
        accounts.set_password(HOME, user, PASSWORD)
    accounts.close()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "SHITSUJI_"))}
    env.update(
        SHITSUJI_DATABASE_URL=pg_url,
        SHITSUJI_EMBEDDER="hash",
        SHITSUJI_LINE_CHANNEL_SECRET="test-secret",
        SHITSUJI_LINE_CHANNEL_TOKEN="test-token",
        SHITSUJI_LINE_API_URL=f"http://127.0.0.1:{free_port()}",  # nothing listens: nothing is sent
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "shitsuji", "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_S
        while True:
            try:
                httpx.get(f"{base}/api/health", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        kids = children(server.pid)
        assert len([c for c in kids if "spawn_main" in c]) == 2, kids  # uvicorn's app processes
        assert len([c for c in kids if "shitsuji worker" in c]) == 1, kids
        heard: list[tuple[str, float]] = []
        with httpx.Client(base_url=base, timeout=30) as watcher:
            _sign_in(watcher, "husband")
            with watcher.stream("GET", "/api/events") as stream:
                lines = stream.iter_lines()
                assert next(lines) == "event: hello"
                for n in range(3):  # each write on a new connection: either process may take it
                    with httpx.Client(base_url=base, timeout=30) as writer:
                        csrf = _sign_in(writer, "wife")
                        changed = time.monotonic()
                        added = writer.post(
                            "/api/panel-actions",
                            json={"action": "add_todo", "title": f"用事{n}"},
                            headers={"X-CSRF-Token": csrf},
                        )
                        assert added.status_code == 200, added.text
                    for line in lines:
                        if line.startswith("event: "):
                            heard.append((line.removeprefix("event: "), time.monotonic() - changed))
                            break
        assert [kind for kind, _ in heard] == ["household"] * 3
        assert all(after < 1.0 for _, after in heard), heard  # the streams' own re-read is 5 s apart
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert "by 2 processes" in out
    assert not children(server.pid)  # the app processes and the LINE worker stopped with serve
