"""The reference app: a household butler's shopping, events, to-dos and expenses.

``HouseholdStore`` keeps the household's tables in the shitsuji database and turns a
verified member into a ``ToolContext`` (``member_context``); ``household_toolbox`` gives
the twelve tools of the app's public contract; ``count_index`` is the one-line summary
sent with every turn instead of the data; ``butler`` wires them into an ``Assistant``.
"""

from ._bench import estimate_tokens, prompt_tokens_benchmark
from ._butler import butler, butler_toolbox
from ._index import count_index, format_counts
from ._records import Anniversary, Counts, Event, Expense, Household, ShoppingItem, Todo
from ._store import HouseholdStore
from ._tools import TOOLS, household_toolbox

__all__ = [
    "TOOLS",
    "Anniversary",
    "Counts",
    "Event",
    "Expense",
    "Household",
    "HouseholdStore",
    "ShoppingItem",
    "Todo",
    "butler",
    "butler_toolbox",
    "count_index",
    "estimate_tokens",
    "format_counts",
    "household_toolbox",
    "prompt_tokens_benchmark",
]
