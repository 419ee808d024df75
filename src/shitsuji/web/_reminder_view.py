"""What the Settings page shows of the reminders: below both the settings routes and the reminder
routes, so that neither imports the other. (Their words are in the one table, ``_i18n_domains``.)"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from ._member import Member
from ._security import backend_of


def reminder_context(request: Request, member: Member) -> dict[str, Any]:
    """What the settings page's reminder section shows."""
    reminders = backend_of(request).reminders
    used, budget = reminders.pushes()
    return {
        "reminders": reminders.settings.get(member.household, member.user),
        "pushes_used": used,
        "push_budget": budget,
    }
