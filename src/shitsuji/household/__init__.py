"""The reference app: a household butler's shopping, events, to-dos and expenses.

``HouseholdStore`` keeps the household's tables in the shitsuji database; ``HouseholdDeps``
turns a verified member into a ``ToolContext`` for the tools (``household_toolbox``: the
twelve tools of the app's public contract); ``count_index`` is the one-line summary sent
with every turn instead of the data; the panels (``panel_view``, ``open_panel``) are the
app's views; ``Butler`` wires all of it to the conversation service the channels drive.
Names load on first use: the command line lists its commands without the app's imports.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ACTIONS",
    "HOUSEHOLD_CHANNEL",
    "HOUSEHOLD_SCHEMA",
    "PANELS",
    "TOOLS",
    "Anniversary",
    "Applied",
    "Butler",
    "Counts",
    "Ctx",
    "Event",
    "Expense",
    "Household",
    "HouseholdDeps",
    "HouseholdStore",
    "OpenPanel",
    "Panel",
    "PanelAction",
    "ShoppingItem",
    "ShoppingList",
    "Todo",
    "apply",
    "butler_toolbox",
    "check_panel",
    "count_index",
    "estimate_tokens",
    "format_counts",
    "household_now",
    "household_toolbox",
    "label_of",
    "open_panel",
    "panel_of",
    "panel_view",
    "prompt_tokens_benchmark",
]

if TYPE_CHECKING:
    from ._actions import ACTIONS, Applied, PanelAction, apply
    from ._bench import estimate_tokens, prompt_tokens_benchmark
    from ._butler import Butler, butler_toolbox
    from ._deps import Ctx, HouseholdDeps
    from ._index import count_index, format_counts, household_now
    from ._panels import (
        PANELS,
        OpenPanel,
        Panel,
        ShoppingList,
        check_panel,
        label_of,
        open_panel,
        panel_of,
        panel_view,
    )
    from ._records import Anniversary, Counts, Event, Expense, Household, ShoppingItem, Todo
    from ._schema import HOUSEHOLD_SCHEMA
    from ._store import HOUSEHOLD_CHANNEL, HouseholdStore
    from ._tools import TOOLS, household_toolbox

__getattr__ = lazy_exports(
    __name__,
    {
        "ACTIONS": "._actions",
        "Applied": "._actions",
        "PanelAction": "._actions",
        "apply": "._actions",
        "estimate_tokens": "._bench",
        "prompt_tokens_benchmark": "._bench",
        "Butler": "._butler",
        "butler_toolbox": "._butler",
        "Ctx": "._deps",
        "HouseholdDeps": "._deps",
        "count_index": "._index",
        "format_counts": "._index",
        "household_now": "._index",
        "PANELS": "._panels",
        "OpenPanel": "._panels",
        "Panel": "._panels",
        "ShoppingList": "._panels",
        "check_panel": "._panels",
        "label_of": "._panels",
        "open_panel": "._panels",
        "panel_of": "._panels",
        "panel_view": "._panels",
        "Anniversary": "._records",
        "Counts": "._records",
        "Event": "._records",
        "Expense": "._records",
        "Household": "._records",
        "ShoppingItem": "._records",
        "Todo": "._records",
        "HOUSEHOLD_SCHEMA": "._schema",
        "HOUSEHOLD_CHANNEL": "._store",
        "HouseholdStore": "._store",
        "TOOLS": "._tools",
        "household_toolbox": "._tools",
    },
)
