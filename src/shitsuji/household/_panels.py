"""The household app's panels: which there are, the segment label each opens, what each shows.

A panel is the app's view of one list (shopping, calendar, to-dos, budget). The model can
ask for one with ``open_panel``, whose output carries an ``OpenPanel`` effect; the channel
opens the panel and — as when a person opens it — starts the conversation segment
labelled ``household.<panel>``. The label therefore always comes from what the UI opened.

A channel without panels shows lists its own way: ``list_shopping_items`` returns a
``ShoppingList`` effect, which LINE renders as a rich message beside the answer (the model
never writes the channel's markup).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal, get_args

from ..agent import ToolOutput, UiEffect, tool
from ..errors import UserInputError
from ._anniversaries import AnniversaryStore
from ._deps import Ctx
from ._money import MoneyStore
from ._nisa import NisaStore
from ._recipes import RecipeStore
from ._records import ShoppingItem
from ._store import HouseholdStore
from ._values import month_of

Panel = Literal["shopping", "calendar", "todos", "budget", "anniversaries", "recipes", "nisa"]
PANELS: tuple[Panel, ...] = get_args(Panel)
LABEL_PREFIX = "household."
RECENTLY_DONE = 5


def check_panel(name: str) -> Panel:
    for panel in PANELS:
        if panel == name:
            return panel
    raise UserInputError(f"no panel {name!r}: choose one of {', '.join(PANELS)}")


def label_of(panel: Panel) -> str:
    """The segment label of a panel: ``household.shopping`` …"""
    return LABEL_PREFIX + panel


def panel_of(label: str | None) -> Panel | None:
    """The panel a segment label names, if it names one."""
    if label and label.startswith(LABEL_PREFIX) and label[len(LABEL_PREFIX) :] in PANELS:
        return check_panel(label[len(LABEL_PREFIX) :])
    return None


@dataclass(frozen=True, slots=True)
class OpenPanel(UiEffect):
    """Open this panel beside the chat (channels without panels ignore it)."""

    panel: Panel

    @property
    def label(self) -> str:
        return label_of(self.panel)


@dataclass(frozen=True, slots=True)
class ShoppingList(UiEffect):
    """The household's shopping list as it is now, for a channel to show (LINE: a Flex bubble)."""

    items: tuple[ShoppingItem, ...]


@tool(effect="write", summary=lambda a: f"{a['name']} パネルを開く")
def open_panel(ctx: Ctx, name: Panel) -> ToolOutput:
    """Open a panel beside the chat (shopping, calendar, todos, budget, anniversaries,
    recipes, nisa) when the person asks
    for panel work."""
    return ToolOutput(f"the {name} panel is open", effects=(OpenPanel(name),))


def panel_view(
    store: HouseholdStore, household: str, name: Panel, month: str | None = None, *, viewer: str = ""
) -> dict[str, Any]:
    """What a panel shows: the shopping list, upcoming events, open to-dos, a month's budget, or the
    anniversaries ``viewer`` may see (the household's and their own), soonest first."""
    today = store.today(household)
    if name == "anniversaries":
        coming = AnniversaryStore(store.database).upcoming(household, viewer, today)
        return {"panel": name, "anniversaries": [u.to_json() for u in coming]}
    if name == "nisa":
        return nisa_view(NisaStore(store.database), household, viewer, today.year)
    if name == "recipes":
        return {
            "panel": name,
            "recipes": [r.to_json() for r in RecipeStore(store.database).recipes(household)],
        }
    if name == "shopping":
        return {"panel": name, "items": [i.to_json() for i in store.shopping_items(household)]}
    if name == "calendar":
        return {
            "panel": name,
            "events": [e.to_json() for e in store.events(household, today, None, viewer=viewer)],
        }
    if name == "todos":  # the open ones, then the last few done (to reopen one ticked by mistake)
        every = store.todos(household, include_done=True, viewer=viewer)
        done = sorted((t for t in every if t.done), key=lambda t: t.done_at or "", reverse=True)
        shown = [t for t in every if not t.done] + done[:RECENTLY_DONE]
        return {"panel": name, "todos": [t.to_json() for t in shown]}
    return budget(store, household, month, today)


def budget(store: HouseholdStore, household: str, month: str | None, today: date) -> dict[str, Any]:
    """A month's expenses with their total and the totals by category, largest first."""
    try:
        rows = [x.to_json() for x in store.expenses(household, month)]
    except OverflowError:  # 9999-12 has no following month to bound the range
        raise UserInputError(f"month {month!r} is out of range: use a month before 9999-12") from None
    by_category: dict[str, int] = {}
    for row in rows:
        by_category[row["category"]] = by_category.get(row["category"], 0) + row["amount_yen"]
    shown = month or month_of(today)
    first = date.fromisoformat(shown + "-01")
    before = month_of(first - timedelta(days=1)) if first > date(1, 1, 1) else shown
    after = month_of(first + timedelta(days=31)) if shown < "9999-11" else shown  # 9999-12 has no end
    money = MoneyStore(store.database)
    return {
        "panel": "budget",
        "settlement": money.settlement(household, shown).to_json(),
        "trend": [{"month": m, "total_yen": t} for m, t in money.trend(household, shown)],
        "month": shown,
        "previous": before,
        "next": after,
        "expenses": rows,
        "total_yen": sum(r["amount_yen"] for r in rows),
        "by_category": dict(sorted(by_category.items(), key=lambda kv: -kv[1])),
    }


def nisa_view(nisa: NisaStore, household: str, viewer: str, year: int) -> dict[str, Any]:
    """The NISA panel: ``viewer``'s own room this year and for life (never the other member's), the
    holdings they see, and this year's purchases they see (their own first)."""
    bought = sorted(
        nisa.contributions(household, viewer, year=year), key=lambda c: (c.owner != viewer, c.day)
    )
    held = nisa.holdings(household, viewer)
    return {
        "panel": "nisa",
        "year": year,
        "allowance": nisa.allowance(household, viewer, year).to_json(),
        "holdings": [h.to_json() for h in held],
        "holdings_yen": sum(h.value_yen for h in held if h.owner == viewer),
        "contributions": [{**c.to_json(), "mine": c.owner == viewer} for c in bought],
    }
