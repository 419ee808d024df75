"""CPU time of the processes a throughput figure rests on: the app processes and the database server.

Turns per second on a shared machine move with its load; CPU seconds per turn do much less, and say
where a turn's cost lies (our code, or the database answering it). Read from ``/proc`` (Linux): a
process's user + system time, its threads included. The PostgreSQL server is the postmaster and
every process it started (backends, writers), found from a backend's parent; what its children that
already exited used is in the postmaster's ``cutime``/``cstime``. Elsewhere the figures are None.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["cpu_seconds", "postgres_server_pid", "server_cpu_seconds"]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from 3 (state) on: the name may hold spaces


def cpu_seconds(pids: Iterable[int], *, children: bool = False) -> float | None:
    """User + system CPU seconds of ``pids`` so far (with ``children``: of their waited-for children too)."""
    total = 0.0
    for pid in pids:
        fields = _stat(pid)
        if fields is None:
            return None
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        if children:
            ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
        total += ticks / _TICK
    return total


def postgres_server_pid(url: str) -> int | None:
    """The postmaster's pid of a PostgreSQL on this machine (a backend's parent), else None."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            # read while the connection is open: its backend process ends with it
            fields = _stat(int(row[0])) if row else None
    except psycopg.Error:
        return None
    return int(fields[1]) if fields else None  # field 4: the parent's pid


def server_cpu_seconds(postmaster: int | None) -> float | None:
    """CPU seconds of the server so far: the postmaster with its exited children, and each live child."""
    if postmaster is None or _stat(postmaster) is None:
        return None
    total = cpu_seconds([postmaster], children=True) or 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and int(fields[1]) == postmaster:
            total += cpu_seconds([int(entry.name)]) or 0.0
    return total
