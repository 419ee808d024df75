"""Each member's say in what the butler sends them first: reminders on or off (and how long before
an event, how many days before an anniversary), the morning digest on or off (and at what
household-local time), and quiet hours.

Everything is off until the member turns it on (opt-in): a butler that starts talking on its own
must be asked to. Quiet hours hold LINE pushes back until they end; the web app's notification list
is silent, so a reminder still appears there at once.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, time
from typing import Any

from ..errors import UserInputError
from ..household._values import check_name
from ..store import Database

__all__ = [
    "MAX_AHEAD_DAYS",
    "MAX_LEAD_MINUTES",
    "MemberSettings",
    "SettingsStore",
    "in_quiet",
    "parse_clock_time",
]

MAX_LEAD_MINUTES = 24 * 60  # a reminder at most a day ahead (days ahead belong in the digest)
MAX_AHEAD_DAYS = 30  # an anniversary's reminder at most a month ahead
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_COLUMNS = "reminders, digest, digest_at, lead_minutes, quiet_from, quiet_to, anniversary_days"


@dataclass(frozen=True, slots=True)
class MemberSettings:
    household: str
    member: str
    reminders: bool = False
    digest: bool = False
    digest_at: str = "07:30"  # household-local HH:MM
    lead_minutes: int = 30
    quiet_from: str | None = None  # household-local HH:MM; both or neither
    quiet_to: str | None = None
    anniversary_days: int = 3  # with reminders on: days before an anniversary, at the digest time (0: none)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_clock_time(value: str, what: str) -> str:
    """A wall-clock time ``HH:MM`` (24-hour), canonical with two-digit hours."""
    m = _HHMM.match(value.strip())
    if m is None:
        raise UserInputError(f"{what} {value!r} is not a time of day: use HH:MM (24-hour), e.g. 07:30")
    return f"{int(m.group(1)):02d}:{m.group(2)}"


def _check_days(days: int) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_AHEAD_DAYS:
        raise UserInputError(
            f"days before an anniversary must be a whole number from 0 (no reminder) to {MAX_AHEAD_DAYS}, "
            f"got {days!r}"
        )
    return days


def _check_lead(minutes: int) -> int:
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 0 <= minutes <= MAX_LEAD_MINUTES:
        raise UserInputError(
            f"reminder lead must be a whole number of minutes from 0 to {MAX_LEAD_MINUTES}, got {minutes!r}"
        )
    return minutes


def in_quiet(settings: MemberSettings, at: time) -> bool:
    """Whether the household-local time ``at`` falls in the member's quiet hours (they may span midnight)."""
    if settings.quiet_from is None or settings.quiet_to is None:
        return False
    start, end = time.fromisoformat(settings.quiet_from), time.fromisoformat(settings.quiet_to)
    if start == end:
        return False
    return start <= at < end if start < end else at >= start or at < end


class SettingsStore:
    """Reads and writes ``schedule_settings`` (the database is opened by the caller, with the schema)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, household: str, member: str) -> MemberSettings:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM schedule_settings WHERE household = ? AND member = ?",
            (household, member),
        ).fetchone()
        if row is None:
            return MemberSettings(household, member)
        return MemberSettings(household, member, bool(row[0]), bool(row[1]), *row[2:])

    def update(self, household: str, member: str, **changes: Any) -> MemberSettings:
        """Change some of a member's settings (``quiet=None`` clears quiet hours, ``quiet=("22:00", "07:00")``
        sets them); the member must belong to the household."""
        check_name(member, "member")
        known = self.db.execute(
            'SELECT 1 FROM household_members WHERE household = ? AND "user" = ?', (household, member)
        ).fetchone()
        if known is None:
            raise UserInputError(
                f"{member!r} is not a member of household {household!r}: name one of its members"
            )
        current = self.get(household, member)
        new = replace(current, **_checked(changes))
        values = (
            int(new.reminders),
            int(new.digest),
            new.digest_at,
            new.lead_minutes,
            new.quiet_from,
            new.quiet_to,
            new.anniversary_days,
        )
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self.db.write() as tx:
            tx.execute(
                f"INSERT INTO schedule_settings (household, member, {_COLUMNS}, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (household, member) DO UPDATE SET "
                "reminders = excluded.reminders, digest = excluded.digest, digest_at = excluded.digest_at, "
                "lead_minutes = excluded.lead_minutes, quiet_from = excluded.quiet_from, "
                "quiet_to = excluded.quiet_to, anniversary_days = excluded.anniversary_days, "
                "updated_at = excluded.updated_at",
                (household, member, *values, now),
            )
        return new


def _checked(changes: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in changes.items():
        if name in ("reminders", "digest"):
            out[name] = bool(value)
        elif name == "digest_at":
            out[name] = parse_clock_time(str(value), "digest time")
        elif name == "lead_minutes":
            out[name] = _check_lead(value)
        elif name == "anniversary_days":
            out[name] = _check_days(value)
        elif name == "quiet":
            if value is None:
                out["quiet_from"] = out["quiet_to"] = None
            else:
                start, end = value
                out["quiet_from"] = parse_clock_time(start, "quiet hours start")
                out["quiet_to"] = parse_clock_time(end, "quiet hours end")
        else:
            raise TypeError(f"unknown setting {name!r}")
    return out
