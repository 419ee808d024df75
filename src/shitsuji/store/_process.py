"""Who holds a row: this process, named so that another process can tell whether it is still alive.

A claim or a running card records its holder. After ``kill -9`` nobody releases it, so a later
process asks whether the holder still lives. On SQLite (one machine) the name is the host, the
boot id, the pid and the pid's start time (a pid is reused; the pair is not): a holder of this host
whose boot id differs, or whose pid is gone or started at another time, is dead. A holder on
another host is taken to be alive (its lease still ends it). PostgreSQL names a session-level
advisory lock instead (see ``PostgresDatabase.holder``), which the server drops with the connection.
"""

from __future__ import annotations

import os
import socket
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:  # not Linux: the pid and its start time alone
        return "-"


def start_time(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot), "-" where /proc is missing, None if no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return "-"
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, after the command name in parentheses


_MINE: dict[int, str] = {}


def this_process() -> str:
    """This process's name (worked out once per pid: a forked child has its own)."""
    pid = os.getpid()
    name = _MINE.get(pid)
    if name is None:
        name = _MINE[pid] = f"{socket.gethostname()}|{boot_id()}|{pid}|{start_time(pid) or '-'}"
    return name


def local_alive(holder: str) -> bool:
    """False only when ``holder`` surely is gone (see the module's docstring)."""
    parts = holder.split("|")
    if len(parts) != 4:
        return True  # not a process name (a row from before holders were recorded): its lease decides
    host, boot, pid, started = parts
    if host != socket.gethostname():
        return True
    if boot != boot_id():
        return False
    now = start_time(int(pid))
    return now is not None and (now == started or "-" in (now, started))
