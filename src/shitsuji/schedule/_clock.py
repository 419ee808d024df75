"""The scheduler's clock: a seam with a fake beside it, so tests move time instead of sleeping.

Everything the scheduler decides — what is due, what is late, which month's push budget — asks
a ``Clock`` for the time. ``SystemClock`` reads the machine's; ``FakeClock`` holds a time that a
test sets or advances (and that several workers in one test share), so a daylight-saving change
or a night of downtime takes a line instead of an hour.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "FakeClock", "SystemClock"]


class Clock(Protocol):
    """Tells the time: an aware datetime (UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock that stands still until told: ``set`` it or ``advance`` it (thread-safe)."""

    def __init__(self, at: datetime | str) -> None:
        self._at = _aware(at)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._at

    def set(self, at: datetime | str) -> None:
        with self._lock:
            self._at = _aware(at)

    def advance(self, **delta: float) -> datetime:
        """Move on by ``timedelta(**delta)`` (minutes=5, hours=1 …); the new time."""
        with self._lock:
            self._at += timedelta(**delta)
            return self._at


def _aware(at: datetime | str) -> datetime:
    moment = datetime.fromisoformat(at) if isinstance(at, str) else at
    if moment.tzinfo is None:
        raise ValueError(f"the fake clock needs a time with its offset, got {at!r}")
    return moment.astimezone(UTC)
