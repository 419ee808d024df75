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
    "ANNIVERSARY_TOOLS",
    "CODE_TTL",
    "DOMAIN_TOOLS",
    "EDIT_TOOLS",
    "HOUSEHOLD_CHANNEL",
    "HOUSEHOLD_SCHEMA",
    "LIMITS",
    "LINE_SCHEMA",
    "LIST_FIELDS",
    "MONEY_TOOLS",
    "NISA_TOOLS",
    "PANELS",
    "RECIPE_TOOLS",
    "ROUTINE_TOOLS",
    "TOOLS",
    "WEEKDAY_NAMES",
    "Allowance",
    "Anniversary",
    "AnniversaryList",
    "AnniversaryStore",
    "Applied",
    "Butler",
    "Contribution",
    "Counts",
    "Ctx",
    "Event",
    "Expense",
    "GitHubSettings",
    "Holding",
    "Household",
    "HouseholdDeps",
    "HouseholdStore",
    "Ingredient",
    "Issue",
    "IssueTracker",
    "IssueTrackerError",
    "LineLinks",
    "Link",
    "Match",
    "MoneyStore",
    "NisaStore",
    "OpenPanel",
    "Panel",
    "PanelAction",
    "Recipe",
    "RecipeStore",
    "Recurrence",
    "Settlement",
    "ShoppingItem",
    "ShoppingList",
    "Todo",
    "Upcoming",
    "apply",
    "butler_toolbox",
    "check_panel",
    "count_index",
    "days_until",
    "edit_event",
    "edit_expense",
    "estimate_tokens",
    "format_counts",
    "github_settings",
    "household_now",
    "household_toolbox",
    "ingredient_key",
    "label_of",
    "looks_like_code",
    "next_occurrence",
    "open_panel",
    "panel_of",
    "panel_view",
    "parse_ingredients",
    "parse_ratio",
    "prompt_tokens_benchmark",
    "request_tool",
    "rule_of",
    "shares",
]

if TYPE_CHECKING:
    from ._actions import ACTIONS, LIST_FIELDS, Applied, PanelAction, apply
    from ._anniversaries import Anniversary, AnniversaryStore, Upcoming, days_until, next_occurrence
    from ._anniversary_tools import ANNIVERSARY_TOOLS, AnniversaryList
    from ._bench import estimate_tokens, prompt_tokens_benchmark
    from ._butler import DOMAIN_TOOLS, Butler, butler_toolbox
    from ._deps import Ctx, HouseholdDeps
    from ._edit_tools import EDIT_TOOLS
    from ._edits import edit_event, edit_expense
    from ._github import GitHubSettings, github_settings
    from ._index import count_index, format_counts, household_now
    from ._line_links import CODE_TTL, LINE_SCHEMA, LineLinks, Link, looks_like_code
    from ._money import MoneyStore, Settlement, parse_ratio, shares
    from ._money_tools import MONEY_TOOLS
    from ._nisa import LIMITS, Allowance, Contribution, Holding, NisaStore
    from ._nisa_tools import NISA_TOOLS
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
    from ._recipe_tools import RECIPE_TOOLS
    from ._recipes import Ingredient, Match, Recipe, RecipeStore, ingredient_key, parse_ingredients
    from ._records import Counts, Event, Expense, Household, ShoppingItem, Todo
    from ._recurrence import WEEKDAY_NAMES, Recurrence
    from ._requests import Issue, IssueTracker, IssueTrackerError, request_tool
    from ._routine_tools import ROUTINE_TOOLS, rule_of
    from ._schema import HOUSEHOLD_SCHEMA
    from ._store import HOUSEHOLD_CHANNEL, HouseholdStore
    from ._tools import TOOLS, household_toolbox

__getattr__ = lazy_exports(
    __name__,
    {
        "CODE_TTL": "._line_links",
        "LINE_SCHEMA": "._line_links",
        "LineLinks": "._line_links",
        "Link": "._line_links",
        "looks_like_code": "._line_links",
        "ACTIONS": "._actions",
        "Applied": "._actions",
        "LIST_FIELDS": "._actions",
        "PanelAction": "._actions",
        "apply": "._actions",
        "Anniversary": "._anniversaries",
        "AnniversaryStore": "._anniversaries",
        "Upcoming": "._anniversaries",
        "days_until": "._anniversaries",
        "next_occurrence": "._anniversaries",
        "ANNIVERSARY_TOOLS": "._anniversary_tools",
        "AnniversaryList": "._anniversary_tools",
        "estimate_tokens": "._bench",
        "prompt_tokens_benchmark": "._bench",
        "DOMAIN_TOOLS": "._butler",
        "Butler": "._butler",
        "butler_toolbox": "._butler",
        "Ctx": "._deps",
        "HouseholdDeps": "._deps",
        "EDIT_TOOLS": "._edit_tools",
        "edit_event": "._edits",
        "edit_expense": "._edits",
        "count_index": "._index",
        "format_counts": "._index",
        "household_now": "._index",
        "MoneyStore": "._money",
        "Settlement": "._money",
        "parse_ratio": "._money",
        "shares": "._money",
        "MONEY_TOOLS": "._money_tools",
        "LIMITS": "._nisa",
        "Allowance": "._nisa",
        "Contribution": "._nisa",
        "Holding": "._nisa",
        "NisaStore": "._nisa",
        "NISA_TOOLS": "._nisa_tools",
        "PANELS": "._panels",
        "OpenPanel": "._panels",
        "Panel": "._panels",
        "ShoppingList": "._panels",
        "check_panel": "._panels",
        "label_of": "._panels",
        "open_panel": "._panels",
        "panel_of": "._panels",
        "panel_view": "._panels",
        "RECIPE_TOOLS": "._recipe_tools",
        "Ingredient": "._recipes",
        "Match": "._recipes",
        "Recipe": "._recipes",
        "RecipeStore": "._recipes",
        "ingredient_key": "._recipes",
        "parse_ingredients": "._recipes",
        "Counts": "._records",
        "Event": "._records",
        "Expense": "._records",
        "Household": "._records",
        "ShoppingItem": "._records",
        "Todo": "._records",
        "Recurrence": "._recurrence",
        "ROUTINE_TOOLS": "._routine_tools",
        "rule_of": "._routine_tools",
        "WEEKDAY_NAMES": "._recurrence",
        "GitHubSettings": "._github",
        "Issue": "._requests",
        "IssueTracker": "._requests",
        "IssueTrackerError": "._requests",
        "github_settings": "._github",
        "request_tool": "._requests",
        "HOUSEHOLD_SCHEMA": "._schema",
        "HOUSEHOLD_CHANNEL": "._store",
        "HouseholdStore": "._store",
        "TOOLS": "._tools",
        "household_toolbox": "._tools",
    },
)
