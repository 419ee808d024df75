"""A butler that speaks first: reminders before events, due to-dos and anniversaries, and a morning digest.

The scheduler plans delivery rows from the household's data (``plan``: one row per member,
reminder and occurrence, unique), claims due ones and pushes them to LINE (``claim``,
``Scheduler``); the web app lists them (``Notifications``). Members opt in and set quiet hours
(``SettingsStore``). Time comes from a ``Clock`` (``FakeClock`` in tests). New kinds of dated
things plug in as a ``Source``. Tables: ``SCHEDULE_SCHEMA`` (open the database with it).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._claims import LEASE, Budget, Claimed, claim, month_of, pushes_used, settle
from ._clock import Clock, FakeClock, SystemClock
from ._notifications import Notification, Notifications
from ._plan import DIGEST_CUTOFF, GRACE, LOOKBACK, plan
from ._reminders import Reminders
from ._schema import SCHEDULE_SCHEMA
from ._settings import (
    MAX_AHEAD_DAYS,
    MAX_LEAD_MINUTES,
    MemberSettings,
    SettingsStore,
    in_quiet,
    parse_clock_time,
)
from ._sources import SOURCES, AnniversarySource, EventSource, Occurrence, RecurringSource, Source, TodoSource

if TYPE_CHECKING:
    from ._worker import Scheduler, Tick

# the scheduler pushes through LINE's SDK (line-bot-sdk: seconds to import); the web app lists
# reminders (``Reminders``) and must not pay for it, so ``Scheduler`` loads on first use
__getattr__ = lazy_exports(__name__, {"Scheduler": "._worker", "Tick": "._worker"})

__all__ = [
    "DIGEST_CUTOFF",
    "GRACE",
    "LEASE",
    "LOOKBACK",
    "MAX_AHEAD_DAYS",
    "MAX_LEAD_MINUTES",
    "SCHEDULE_SCHEMA",
    "SOURCES",
    "AnniversarySource",
    "Budget",
    "Claimed",
    "Clock",
    "EventSource",
    "FakeClock",
    "MemberSettings",
    "Notification",
    "Notifications",
    "Occurrence",
    "RecurringSource",
    "Reminders",
    "Scheduler",
    "SettingsStore",
    "Source",
    "SystemClock",
    "Tick",
    "TodoSource",
    "claim",
    "in_quiet",
    "month_of",
    "parse_clock_time",
    "plan",
    "pushes_used",
    "settle",
]
