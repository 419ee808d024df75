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

WORDS = {
    "notifications": ("お知らせ", "Notifications"),
    "no_notifications": (
        "まだお知らせはありません。設定でリマインダーや朝のまとめをオンにできます。",
        "Nothing yet. Turn on reminders or the morning digest in Settings.",
    ),
    "late": ("遅れて送信", "sent late"),
    "status_web": ("アプリのみ", "in the app only"),
    "status_folded": ("朝のまとめに回しました", "held for the digest"),
    "status_digested": ("朝のまとめでお送りしました", "sent in the digest"),
    "status_pending": ("送信待ち", "waiting to send"),
    "status_failed": ("LINEに送れませんでした", "LINE refused it"),
    "reminders": ("リマインダーと朝のまとめ", "Reminders and morning digest"),
    "reminders_note": (
        "予定の前ややることの期限に、LINEとこのアプリでお知らせします。静かな時間にはLINEに送りません。",
        "Before events and when to-dos fall due, over LINE and in this app. No LINE pushes in quiet hours.",
    ),
    "reminders_on": ("リマインダーを受け取る", "Send me reminders"),
    "lead": ("何分前に", "Minutes before"),
    "digest_on": ("朝のまとめを受け取る", "Send me a morning digest"),
    "digest_at": ("まとめの時刻", "Digest time"),
    "quiet_from": ("静かな時間（開始）", "Quiet hours from"),
    "quiet_to": ("静かな時間（終了）", "Quiet hours until"),
    "pushes": ("今月のLINE送信: {used} / {budget} 通", "LINE pushes this month: {used} of {budget}"),
    "no_limit": ("上限なし", "no limit"),
}


def rt(lang: str) -> Any:
    def t(key: str, **values: object) -> str:
        pair = WORDS.get(key, (key, key))
        text = pair[0] if lang == "ja" else pair[1]
        return text.format(**values) if values else text

    return t


def reminder_context(request: Request, member: Member) -> dict[str, Any]:
    """What the settings page's reminder section shows."""
    reminders = backend_of(request).reminders
    used, budget = reminders.pushes()
    return {
        "reminders": reminders.settings.get(member.household, member.user),
        "pushes_used": used,
        "push_budget": budget,
        "rt": rt(words(request, member).lang),
    }


# -- pages --------------------------------------------------------------------


@router.get("/notifications", response_class=HTMLResponse)
async def notifications_page(member: Signed, request: Request) -> Response:
    reminders = backend_of(request).reminders
    found = await asyncio.to_thread(reminders.notifications.of_member, member.household, member.user)
    await asyncio.to_thread(
        reminders.notifications.mark_read, member.household, member.user, datetime.now(UTC)
    )
    lang = words(request, member).lang
    return page(request, "notifications.html", member=member, notifications=found, rt=rt(lang))


@router.post("/settings/reminders", response_class=HTMLResponse)
async def reminders_form(
    member: Signed,
    request: Request,
    reminders: Annotated[str, Form(max_length=3)] = "",
    lead_minutes: Annotated[int, Form(ge=0, le=1440)] = 30,
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
            digest=bool(digest),
            digest_at=digest_at,
            quiet=quiet,
        )
    except UserInputError as exc:
        return settings_page_with_error(request, member, str(exc))
    return see("/settings?done=saved")


# -- JSON ---------------------------------------------------------------------


class ReminderSettingsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reminders: bool | None = None
    lead_minutes: int | None = Field(default=None, ge=0, le=1440)
    digest: bool | None = None
    digest_at: str | None = Field(default=None, max_length=5)
    quiet: tuple[str, str] | None = Field(default=None, description="[from, to] as HH:MM; null clears")


@api.get("/notifications", tags=["reminders"])
async def api_notifications(member: Signed, request: Request) -> dict[str, Any]:
    found = await asyncio.to_thread(
        backend_of(request).reminders.notifications.of_member, member.household, member.user
    )
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
async def api_reminder_settings(member: Signed, request: Request) -> dict[str, Any]:
    reminders = backend_of(request).reminders
    found: MemberSettings = await asyncio.to_thread(reminders.settings.get, member.household, member.user)
    used, budget = reminders.pushes()
    return {**found.to_json(), "pushes_used": used, "push_budget": budget or None}


@api.put("/reminders", tags=["reminders"])
async def api_set_reminders(body: ReminderSettingsIn, member: Signed, request: Request) -> dict[str, Any]:
    changes = body.model_dump(exclude_unset=True)
    found = await asyncio.to_thread(
        backend_of(request).reminders.settings.update, member.household, member.user, **changes
    )
    return found.to_json()
