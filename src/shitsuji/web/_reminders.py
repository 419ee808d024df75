"""Reminders in the web app: the member's notifications (a page and JSON, live through the household's
event stream: a new delivery changes its fingerprint) and their reminder settings (a section of the
settings page and JSON), with the month's LINE pushes against the budget.

A member reads and changes only their own: every query names (household, member) from the session.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from .._offload import off_loop
from ..errors import UserInputError
from ..schedule import MemberSettings
from ._locale import words
from ._member import Member
from ._pages import page, see
from ._security import backend_of, signed_in

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")
Signed = Annotated[Member, Depends(signed_in)]
Clock = Form(max_length=5)

# -- pages --------------------------------------------------------------------


@router.get("/notifications", response_class=HTMLResponse)
def notifications_page(member: Signed, request: Request) -> Response:
    notifications = backend_of(request).reminders.notifications
    found = notifications.of_member(member.household, member.user)
    notifications.mark_read(member.household, member.user, datetime.now(UTC))
    return page(request, "notifications.html", member=member, notifications=found)


@router.post("/settings/reminders", response_class=HTMLResponse)
async def reminders_form(
    member: Signed,
    request: Request,
    reminders: Annotated[str, Form(max_length=3)] = "",
    lead_minutes: Annotated[int, Form(ge=0, le=1440)] = 30,
    anniversary_days: Annotated[int, Form(ge=0, le=30)] = 3,
    digest: Annotated[str, Form(max_length=3)] = "",
    digest_at: Annotated[str, Clock] = "07:30",
    quiet_from: Annotated[str, Clock] = "",
    quiet_to: Annotated[str, Clock] = "",
) -> Response:
    from ._settings import settings_page_with_error

    quiet = (quiet_from, quiet_to) if quiet_from and quiet_to else None
    try:
        await asyncio.to_thread(
            backend_of(request).reminders.settings.update,
            member.household,
            member.user,
            reminders=bool(reminders),
            lead_minutes=lead_minutes,
            anniversary_days=anniversary_days,
            digest=bool(digest),
            digest_at=digest_at,
            quiet=quiet,
        )
    except UserInputError as exc:
        return await off_loop(settings_page_with_error, request, member, str(exc))
    return see("/settings?done=saved")


# -- JSON ---------------------------------------------------------------------


class ReminderSettingsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reminders: bool | None = None
    lead_minutes: int | None = Field(default=None, ge=0, le=1440)
    anniversary_days: int | None = Field(default=None, ge=0, le=30)
    digest: bool | None = None
    digest_at: str | None = Field(default=None, max_length=5)
    quiet: tuple[str, str] | None = Field(default=None, description="[from, to] as HH:MM; null clears")


@api.get("/notifications", tags=["reminders"])
def api_notifications(member: Signed, request: Request) -> dict[str, Any]:
    found = backend_of(request).reminders.notifications.of_member(member.household, member.user)
    t = words(request, member)  # "when": the household's time zone and the page's language, as on the page
    shown = [{**n.to_json(), "when": t.when(n.fire_at)} for n in found]
    return {"notifications": shown, "unread": sum(not n.read for n in found)}


@api.post("/notifications/read", tags=["reminders"])
async def api_read(member: Signed, request: Request) -> dict[str, int]:
    marked = await asyncio.to_thread(
        backend_of(request).reminders.notifications.mark_read,
        member.household,
        member.user,
        datetime.now(UTC),
    )
    return {"marked": marked}


@api.get("/reminders", tags=["reminders"])
def api_reminder_settings(member: Signed, request: Request) -> dict[str, Any]:
    reminders = backend_of(request).reminders
    found: MemberSettings = reminders.settings.get(member.household, member.user)
    used, budget = reminders.pushes()
    return {**found.to_json(), "pushes_used": used, "push_budget": budget or None}


@api.put("/reminders", tags=["reminders"])
async def api_set_reminders(body: ReminderSettingsIn, member: Signed, request: Request) -> dict[str, Any]:
    changes = body.model_dump(exclude_unset=True)
    found = await asyncio.to_thread(
        backend_of(request).reminders.settings.update, member.household, member.user, **changes
    )
    return found.to_json()
