"""The butler's anniversary tools: read the coming ones, add, change and remove — each write a card.

The speaker is the viewer: the tools see the household's shared anniversaries and the
speaker's own private ones (``AnniversaryStore`` applies the rule), so the butler cannot
read out the spouse's surprise. ``list_anniversaries`` also hands the channel an
``AnniversaryList`` effect (LINE draws it as a Flex bubble).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from ..agent import ToolOutput, UiEffect, tool
from ._anniversaries import AnniversaryStore, Upcoming
from ._deps import Ctx
from ._edit_tools import joined
from ._tools import Day, Note, Private, RowId, Title, _household, _json, _md


@dataclass(frozen=True, slots=True)
class AnniversaryList(UiEffect):
    """The coming anniversaries as they are now, soonest first, for a channel to show."""

    coming: tuple[Upcoming, ...]


def anniversaries_of(ctx: Ctx) -> tuple[AnniversaryStore, str]:
    store, household = _household(ctx)
    return AnniversaryStore(store.database, clock=store.clock), household


@tool(effect="read")
def list_anniversaries(
    ctx: Ctx,
    within_days: Annotated[
        int | None, Field(ge=0, le=366, description="Only those within this many days; all if omitted.")
    ] = None,
) -> ToolOutput:
    """List the household's anniversaries (birthdays, wedding day …) soonest first, with days until each."""
    found, household = anniversaries_of(ctx)
    coming = found.upcoming(household, ctx.user, ctx.deps.store.today(household), within_days=within_days)
    return ToolOutput(_json([u.to_json() for u in coming]), effects=(AnniversaryList(tuple(coming)),))


def _whose(a: dict[str, Any]) -> str:
    return "（自分だけ）" if a.get("private") else ""


@tool(effect="write", summary=lambda a: f"{_md(a['date'])} {a['title']} を記念日に追加{_whose(a)}")
def add_anniversary(ctx: Ctx, title: Title, date: Day, note: Note = None, private: Private = False) -> str:
    """Add a yearly anniversary (the day it began, e.g. the wedding day 2020-06-01)."""
    found, household = anniversaries_of(ctx)
    row = found.add(household, title, date, note, by=ctx.user, private=private)
    return f"added anniversary {row.title} on {row.day} (id {row.id})"


def _edit_summary(a: dict[str, Any]) -> str:
    parts = [
        f"名前→{a['title']}" if a.get("title") else "",
        f"日付→{_md(a['date'])}" if a.get("date") else "",
        f"メモ→{a['note']}" if a.get("note") else "",
        {True: "自分だけに", False: "共有に"}.get(a.get("private"), ""),  # type: ignore[arg-type]
    ]
    return f"記念日 {a['id']} を変更：{joined(parts)}"


@tool(effect="write", summary=_edit_summary)
def edit_anniversary(
    ctx: Ctx,
    id: RowId,
    title: Title | None = None,
    date: Day | None = None,
    note: Note = None,
    private: Annotated[bool | None, Field(description="Only the owner may change who sees it.")] = None,
) -> str:
    """Change an anniversary's title, date, note or who sees it (the id comes from list_anniversaries)."""
    found, household = anniversaries_of(ctx)
    row = found.edit(household, id, ctx.user, title=title, day=date, note=note, private=private)
    return f"changed anniversary {row.title} on {row.day}{' (private)' if row.private else ''}"


@tool(effect="write", summary=lambda a: f"記念日 {a['id']} を削除")
def remove_anniversary(ctx: Ctx, id: RowId) -> str:
    """Remove an anniversary (the id comes from list_anniversaries)."""
    found, household = anniversaries_of(ctx)
    row = found.remove(household, id, ctx.user)
    return f"removed anniversary {row.title}"


ANNIVERSARY_TOOLS = (list_anniversaries, add_anniversary, edit_anniversary, remove_anniversary)
