"""The count index: how much the household holds, in one short line instead of the data.

It goes into every turn's prompt so the model answers "how many …?" without a tool call
and knows which list is worth reading; the rows themselves stay behind the read tools.
The numbers come from COUNT queries, so the line costs the same at ten rows or ten
thousand (see ``prompt_tokens_benchmark``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from ._anniversaries import COLUMNS as ANNIVERSARY_COLUMNS
from ._anniversaries import Anniversary, next_line, upcoming_of
from ._records import Counts, Household
from ._store import HouseholdStore
from ._values import zone_of

Lang = Literal["ja", "en"]


# the rows a viewer's count line reads in its counts' statement: ``count_index`` asks for them and
# ``household_now_ahead`` sends the same statement ahead, so the two cannot name different ones
_SEEN_WITH_COUNTS = ("anniversaries", ANNIVERSARY_COLUMNS)


def count_index(
    store: HouseholdStore, household: str, today: date, *, lang: Lang = "ja", viewer: str | None = None
) -> str:
    """E.g. 「予定 3件・ToDo 5件・買い物 2件・今月の支出 4件（¥12,300）」 for ``household`` on ``today``.

    With a ``viewer``, what only they may see joins the line: the anniversaries (shared and
    their own) and the next one, so "次の記念日は？" needs no tool call.
    """
    if viewer is None:
        return format_counts(store.counts(household, today), lang=lang)
    # the anniversaries they see come in the counts' statement: the whole line is one round trip
    counts, rows = store.counts_with(household, today, viewer, *_SEEN_WITH_COUNTS)
    line = format_counts(counts, lang=lang)
    recipes = counts.recipes
    extra = [
        (f"saved recipes {recipes}" if lang == "en" else f"レシピ {recipes}件") if recipes else "",
        next_line(upcoming_of((Anniversary(*r) for r in rows), today), lang=lang),
    ]
    return (" · " if lang == "en" else "・").join([line, *(e for e in extra if e)])


def format_counts(counts: Counts, *, lang: Lang = "ja") -> str:
    if lang == "en":
        return (
            f"upcoming events {counts.upcoming_events} · open to-dos {counts.open_todos} · "
            f"shopping items {counts.shopping_items} · expenses this month {counts.month_expenses} "
            f"(¥{counts.month_expenses_yen:,})"
        )
    return (
        f"予定 {counts.upcoming_events}件・ToDo {counts.open_todos}件・買い物 {counts.shopping_items}件・"
        f"今月の支出 {counts.month_expenses}件（¥{counts.month_expenses_yen:,}）"
    )


def household_now(
    store: HouseholdStore, household: str, viewer: str | None = None, *, home: Household | None = None
) -> str:
    """The count index after the household's date and time zone, so "today" and "tomorrow" mean theirs.

    E.g. 「2026-12-01 (Tue) 09:30 Asia/Tokyo · 予定 3件・…」. ``home``: the household as already read
    this turn (when the member was verified), so it is not read again.
    """
    if home is None or home.name != household:
        home = store.get(household)
    now = _now(store, home)
    zone = home.time_zone or "server time"
    return f"{now:%Y-%m-%d (%a) %H:%M} {zone} · {count_index(store, household, now.date(), viewer=viewer)}"


def household_now_ahead(
    store: HouseholdStore, household: str, viewer: str, *, home: Household | None
) -> None:
    """``household_now``'s one read sent ahead (``HouseholdStore.counts_ahead``), to share the round trip of
    the next read in this thread's ``one_connection`` block (recall's); nothing without ``home`` as read
    already (reading it here would be a statement of its own)."""
    if home is not None and home.name == household:
        today = _now(store, home).date()
        store.counts_ahead(household, today, viewer, *_SEEN_WITH_COUNTS)


def _now(store: HouseholdStore, home: Household) -> datetime:
    return store.clock().astimezone(zone_of(home.time_zone))
