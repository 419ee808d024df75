"""The reference app: a household butler's shopping, events, to-dos and expenses.

``HouseholdStore`` keeps the household's tables in the shitsuji database; ``HouseholdDeps``
turns a verified member into a ``ToolContext`` for the tools (``household_toolbox``: the
twelve tools of the app's public contract); ``count_index`` is the one-line summary sent
with every turn instead of the data; the panels (``panel_view``, ``open_panel``) are the
app's views; ``Butler`` wires all of it to the conversation service the channels drive.
"""

from ._actions import ACTIONS, Applied, PanelAction, apply
from ._bench import estimate_tokens, prompt_tokens_benchmark
from ._butler import Butler, butler_toolbox
from ._deps import Ctx, HouseholdDeps
from ._index import count_index, format_counts, household_now
from ._line_links import CODE_TTL, LINE_SCHEMA, LineLinks, Link, looks_like_code
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

__all__ = [
    "ACTIONS",
    "CODE_TTL",
    "HOUSEHOLD_CHANNEL",
    "HOUSEHOLD_SCHEMA",
    "LINE_SCHEMA",
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
    "LineLinks",
    "Link",
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
    "looks_like_code",
    "open_panel",
    "panel_of",
    "panel_view",
    "prompt_tokens_benchmark",
]
