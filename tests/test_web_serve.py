"""`shitsuji serve` as a real process: it starts without a model, answers health, and sends a
fresh install to the first-run page."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .web_support import free_port


def test_serve_starts_offline_and_a_fresh_database_goes_to_setup(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "SHITSUJI_"))}
    env.update(SHITSUJI_DB=str(tmp_path / "web.db"), SHITSUJI_EMBEDDER="hash")
    server = subprocess.Popen(
        [sys.executable, "-m", "shitsuji", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{base}/api/health", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        assert health.json() == {"ok": True, "model_ready": False}
        first = httpx.get(f"{base}/", follow_redirects=True)
        assert first.url.path == "/setup" and "<form" in first.text
        assert httpx.get(f"{base}/api/memories").status_code == 401
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=10)
    assert "no household yet" in out and "chat is off" in out and f"127.0.0.1:{port}" in out


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
        deadline = time.monotonic() + 30
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
