"""The day a memory was said, as keyword terms: "What did Maria donate in December 2023?"

A chat line is stored with when it was said (``created_at``), but its words rarely name that day:
"I dropped off the old coats at the shelter" answers a question about December 2023 only through
its date. So every memory is also indexed under its day of the month, the English month name and
the year it was said (``said_terms``), the published "fact-augmented keys" with a timestamp. No
constant: BM25 weighs these terms like any other (a month shared by many memories counts little).

LoCoMo dev, turn-level R@10, each conversation left out (no constant to choose): 0.789 -> 0.809,
every conversation gaining, the gain in the questions naming a month or a year; pooled LongMemEval
and the Japanese sets unchanged (docs/benchmarks.md, "Issue 23, lo23c"). Japanese questions meet it through the year and the day
numbers (2023年12月 holds "2023"); 年/月/日 themselves are not added: every Japanese question about a
birthday (誕生日) would match every memory.

The day is the speaker's: a fact said at 23:30 on 3 December in Tokyo is 3 December's, though it is
14:30 UTC. The writer (the household's ``remember`` tool, its extraction; the edge knows the zone)
passes the zone, and the memory keeps its name in ``provenance["zone"]`` (``stamp_zone``), so
``reindex``, export and import, and ranking (``said_zone``) find the same day without asking the
household again — and a household that later moves keeps the days its facts were said on. A row
without one (written before, or by a caller with no zone: the benches, the command line) is UTC's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._text import terms

ZONE_KEY: Final = "zone"  # the provenance key holding the zone a fact was said in
_OFFSET: Final = re.compile(r"UTC([+-])(\d{2}):(\d{2})")

# English month names written out, not ``strftime("%B")``: that follows the process's LC_TIME, and a
# server started under ja_JP would index 「12月」 where the index's other rows hold "December".
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def said_terms(said_at: datetime | None, zone: tzinfo = UTC) -> list[str]:
    """Keyword terms of the day ``said_at`` names in ``zone`` (day, month, year); none without a time."""
    if said_at is None:
        return []
    day = said_at.astimezone(zone) if said_at.tzinfo is not None else said_at
    return terms(f"{day.day} {MONTHS[day.month - 1]} {day.year}", readings=False)


def zone_name(zone: tzinfo) -> str:
    """A name ``zone_named`` reads back: the IANA key (Asia/Tokyo), else the fixed offset (UTC+09:00)."""
    if isinstance(zone, ZoneInfo):
        return zone.key
    offset = zone.utcoffset(None) or timedelta(0)  # a fixed zone (the server's, when no IANA name is known)
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def zone_named(name: object) -> tzinfo:
    """The zone ``zone_name`` wrote; UTC for none or a name this machine does not know (kept as UTC's
    day rather than failing a recall over one row)."""
    if not isinstance(name, str) or not name:
        return UTC
    if (m := _OFFSET.fullmatch(name)) is not None:
        minutes = int(m.group(2)) * 60 + int(m.group(3))
        return timezone(timedelta(minutes=-minutes if m.group(1) == "-" else minutes))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def said_zone(provenance: Mapping[str, Any]) -> tzinfo:
    """The zone a memory was said in (its provenance's ``zone``), UTC when it has none."""
    return zone_named(provenance.get(ZONE_KEY))


def stamp_zone(provenance: Mapping[str, Any] | None, zone: tzinfo | None) -> dict[str, Any]:
    """``provenance`` with ``zone``'s name, unless it names one already (an import keeps its own)."""
    out = dict(provenance or {})
    if zone is not None and ZONE_KEY not in out:
        out[ZONE_KEY] = zone_name(zone)
    return out
