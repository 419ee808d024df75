"""How soon ``shitsuji serve`` answers, and how soon it stops: fresh processes, timed from outside.

Each run starts ``python -m shitsuji serve`` over a throw-away database holding a household and a
member who can sign in (hash embedder, no model), and times, from the moment the process is
started:

- ``health_s``: until ``GET /api/health`` first answers (every 20 ms a try);
- ``health_cpu_s``: the CPU seconds the server process had used by then (Linux ``/proc``): what the
  start costs whatever the load, so it reads as the wall time on a quiet machine (the start runs
  on one thread);
- ``stop_s``: after signing in and opening a live-update stream (``/api/events``, which never ends
  by itself), from SIGINT (Ctrl-C) until the process has exited.

``python`` picks the interpreter, so another checkout's ``.venv/bin/python`` runs beside this one
(its own ``shitsuji``): the figures are medians over ``runs``, taken alternately.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PASSWORD = "bench-password-執事"
HEALTH_TIMEOUT_S = 300.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prepare(python: str, db: Path) -> None:
    """The household through the command line of the interpreter under test (its own schema)."""
    env = _env(db, python)
    init = ["household", "init", "--name", "bench", "--member", "m1"]
    subprocess.run([python, "-m", "shitsuji", *init], env=env, check=True, capture_output=True)
    subprocess.run(
        [python, "-m", "shitsuji", "household", "set-password", "m1", "--password-stdin"],
        env=env,
        input=PASSWORD.encode(),
        check=True,
        capture_output=True,
    )


def _env(db: Path, python: str) -> dict[str, str]:
    """No settings from outside; ``PYTHONPATH`` only for this interpreter (another one runs its own code)."""
    others = [] if python == sys.executable else ["PYTHONPATH"]
    drop = ("ANTHROPIC_", "SHITSUJI_", *others)
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(SHITSUJI_DB=str(db), SHITSUJI_EMBEDDER="hash")
    return env


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (NaN where ``/proc`` is not there)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _once(python: str, db: Path) -> tuple[float, float, float]:
    import httpx

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    server = subprocess.Popen(
        [python, "-m", "shitsuji", "serve", "--port", str(port), "--no-worker"],
        env=_env(db, python),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                httpx.get(f"{base}/api/health", timeout=2).raise_for_status()
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() - started > HEALTH_TIMEOUT_S:
                    raise RuntimeError("serve did not answer its health check") from None
                time.sleep(0.02)
        health = time.monotonic() - started
        cpu = _cpu_s(server.pid)
        with httpx.Client(base_url=base, timeout=60) as client:
            signed = client.post(
                "/api/session", json={"user": "m1", "password": PASSWORD, "household": "bench"}
            )
            signed.raise_for_status()
            with client.stream("GET", "/api/events") as stream:
                next(stream.iter_lines())
                server.send_signal(signal.SIGINT)
                asked = time.monotonic()
                server.wait(timeout=120)
                return health, time.monotonic() - asked, cpu
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def run_serve_bench(runs: int = 5, pythons: Sequence[str] = ()) -> dict[str, Any]:
    """Medians of ``health_s``, ``health_cpu_s`` and ``stop_s`` per interpreter (this one first), runs
    alternating; the load average before and after."""
    load = os.getloadavg()[0]
    chosen = [sys.executable, *pythons]
    times: dict[str, list[tuple[float, float, float]]] = {p: [] for p in chosen}
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-serve-") as tmp:
        dbs = {p: Path(tmp) / f"serve{i}.db" for i, p in enumerate(chosen)}
        for python in chosen:
            _prepare(python, dbs[python])
        for _ in range(runs):
            for python in chosen:
                times[python].append(_once(python, dbs[python]))
    return {
        "runs": runs,
        "by_python": {
            p: {
                "health_s_median": round(statistics.median(h for h, _, _ in t), 3),
                "health_s_max": round(max(h for h, _, _ in t), 3),
                "health_cpu_s_median": round(statistics.median(c for _, _, c in t), 3),
                "stop_s_median": round(statistics.median(s for _, s, _ in t), 3),
                "stop_s_max": round(max(s for _, s, _ in t), 3),
            }
            for p, t in times.items()
        },
        "load_average_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
    }
