"""Checking what people and models hand the household: names, times, yen, months.

Each check returns the canonical text stored in the database, or raises ``UserInputError``
with an example of what would be accepted. The tools' input models call them (so a bad
argument is refused before a confirmation card is drawn) and the store calls them again
(so the CLI and library callers are held to the same rules).

Times are the household's wall clock: ``2026-12-03T10:00``, or a bare date for an all-day
entry. An offset such as ``+09:00`` or ``Z`` is refused rather than silently converted,
because the server's time zone need not be the household's. The canonical forms sort as
text, so range queries are plain string comparisons in SQL.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import UserInputError
from ..memory._scopes import INVISIBLE

MAX_TITLE: Final = 100
MAX_NOTE: Final = 500
MAX_CATEGORY: Final = 20
MAX_NAME: Final = 40
MAX_QUANTITY: Final = 99
MAX_YEN: Final = 100_000_000
MAX_ZONE: Final = 64

_NAME: Final = re.compile(r"^[^/\s\x00-\x1f]+$")
_MONTH: Final = re.compile(r"^\d{4}-\d{2}$")


def check_text(value: str, what: str, limit: int = MAX_TITLE) -> str:
    """Stripped, non-empty text of at most ``limit`` characters."""
    text = " ".join(value.split())
    if not text:
        raise UserInputError(f"{what} is empty: give a short text")
    if len(text) > limit:
        raise UserInputError(f"{what} is {len(text)} characters; keep it to {limit}")
    return text


def check_note(value: str | None) -> str | None:
    """An optional note; blank means none."""
    if value is None or not value.strip():
        return None
    return check_text(value, "note", MAX_NOTE)


def check_name(value: str, what: str) -> str:
    """A household name or member id: one scope segment (no '/', no spaces), at most 40 characters."""
    name = value.strip()
    if INVISIBLE.search(name):
        raise UserInputError(
            f"{what} {value.encode('unicode_escape').decode()!r} holds an invisible or control character "
            "(zero-width, text-direction or a broken surrogate): type it again"
        )
    if not name or len(name) > MAX_NAME or name in (".", "..") or not _NAME.match(name):
        raise UserInputError(
            f"{what} {value!r} is not valid: use up to {MAX_NAME} characters without spaces or '/', "
            "e.g. futari or wife"
        )
    return name


def check_time_zone(value: str) -> str:
    """An IANA time zone name such as ``Asia/Tokyo`` or ``Europe/London``."""
    name = value.strip()
    try:
        if not name or len(name) > MAX_ZONE:
            raise ValueError(name)
        ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        raise UserInputError(
            f"time zone {value!r} is not known: use an IANA name such as Asia/Tokyo or Europe/London"
        ) from None
    return name


def zone_of(name: str | None) -> tzinfo:
    """The zone called ``name``; None (a household that has not chosen one) is the server's own."""
    if name:
        return ZoneInfo(name)
    local = datetime.now().astimezone().tzinfo
    assert local is not None
    return local


def parse_when(value: str, what: str) -> str:
    """A local date (``2026-12-03``) or date and time (``2026-12-03T10:00``), canonical."""
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserInputError(
            f"{what} {value!r} is not an ISO 8601 date or time: use e.g. 2026-12-03T10:00 or 2026-12-03"
        ) from None
    if moment.tzinfo is not None:
        raise UserInputError(
            f"{what} {value!r} has a time-zone offset: give the household's local time without one, "
            "e.g. 2026-12-03T10:00"
        )
    precise = moment.second or moment.microsecond
    return moment.isoformat(timespec="seconds" if precise else "minutes")


def parse_day(value: str | date, what: str) -> str:
    """A calendar date, canonical ``YYYY-MM-DD``."""
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise UserInputError(f"{what} {value!r} is not an ISO 8601 date: use e.g. 2026-12-03") from None


def parse_month(value: str) -> str:
    """A calendar month, ``YYYY-MM``."""
    text = value.strip()
    if _MONTH.match(text):
        year, month = int(text[:4]), int(text[5:])
        if (
            1 <= year <= 9999 and 1 <= month <= 12 and (year, month) != (9999, 12)
        ):  # 9999-12 has no next month
            return text
    raise UserInputError(f"month {value!r} is not valid: use YYYY-MM, e.g. 2026-12")


def check_yen(amount: int) -> int:
    """A positive whole number of yen, at most 100,000,000."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_YEN:
        raise UserInputError(f"amount must be a whole number of yen from 1 to {MAX_YEN:,}, got {amount!r}")
    return amount


def check_quantity(quantity: int) -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= MAX_QUANTITY:
        raise UserInputError(f"quantity must be a whole number from 1 to {MAX_QUANTITY}, got {quantity!r}")
    return quantity


def month_of(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def month_range(month: str) -> tuple[str, str]:
    """The first day of ``month`` and of the month after, as the bounds of a half-open range."""
    first = date.fromisoformat(parse_month(month) + "-01")
    following = (first + timedelta(days=32)).replace(day=1)
    return first.isoformat(), following.isoformat()


def day_after(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()
