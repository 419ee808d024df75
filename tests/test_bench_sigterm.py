"""A benchmark stopped by SIGTERM stops the throw-away PostgreSQL and app processes it started: before,
``kill`` (a CI or shell timeout) left them running — found when a stopped ``bench scale`` kept a server."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEADLINE_S = 180.0


def _processes_under(folder: Path) -> dict[int, str]:
    """Running processes (pid: command line) that name ``folder`` (the bench's servers and app processes)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(folder) in command:
            found[int(entry.name)] = command
    return found


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def test_sigterm_stops_the_bench_scale_postgres_and_app_processes() -> None:
    # under /tmp, not pytest's tmp_path: the server runs as another user when tests run as root
    with tempfile.TemporaryDirectory(prefix="shitsuji-sigterm-") as folder:
        try:
            _stop_by_sigterm(Path(folder))
        finally:  # a failed run leaves nothing running either (postgres: a fast shutdown)
            for pid, command in _processes_under(Path(folder)).items():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGINT if "postgres" in command else signal.SIGKILL)


def _stop_by_sigterm(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))
    command = [sys.executable, "-m", "shitsuji", "bench", "scale", "--no-memory", "--engine", "postgresql"]
    command += ["--processes", "1", "--sessions", "1", "--requests", "1000000"]
    log = (tmp_path / "bench.log").open("wb")
    bench = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        # chatting: the app process (started with the database's path under TMPDIR) is running
        _wait_for(
            lambda: any("shitsuji.bench.scale" in c for c in _processes_under(tmp_path).values()), "the app"
        )
        assert any("postgres" in c for c in _processes_under(tmp_path).values())
        bench.send_signal(signal.SIGTERM)
        bench.wait(timeout=DEADLINE_S)
        _wait_for(lambda: not _processes_under(tmp_path), "the bench's processes to stop")
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        log.close()
    assert bench.returncode != 0  # stopped, not finished
    assert not list(tmp_path.glob("shitsuji-scale-*"))  # its temporary folder removed too
