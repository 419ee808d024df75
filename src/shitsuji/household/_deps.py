"""What the household app's tools get in ``ctx.deps``, and the one door from a verified member to them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

from ..agent import ToolContext
from ..context import Segments
from ..memory import MemoryEngine
from ._records import Household
from ._store import HouseholdStore
from ._values import zone_of


@dataclass(frozen=True, slots=True)
class HouseholdDeps:
    """The household's stores and the memory engine, typed for the tools (no lookups by name)."""

    store: HouseholdStore
    memory: MemoryEngine
    segments: Segments
    # the member's household as read when they were verified: a turn's prompt (its time zone, its
    # members) reads it from here rather than again (each statement is a round trip on PostgreSQL)
    home: Household | None = None

    def name_of(self, household: str, row_id: str, viewer: str) -> str | None:
        """What a card about ``row_id`` calls it (only what ``viewer`` sees): ``agent.NamesRows``."""
        return self.store.title_of(household, row_id, viewer=viewer)

    def member(
        self,
        user: str,
        channel: str,
        *,
        household: str | None = None,
        conversation: str | None = None,
        home: Household | None = None,
    ) -> ToolContext[HouseholdDeps]:
        """The tools' context for a verified ``user``, who must belong to the household.

        Without ``household``, the user's only household is meant. The context carries the
        pair (household, user) and the user's own memory scope (``household/<name>/user/<user>``;
        the shared ``household/<name>`` is its parent, so recall sees both). ``deps.home`` is the
        household read for the check, for the rest of this request or turn; ``home``: the household as
        the caller read it already (a web session's, in the session's statement). Its time zone goes on
        the context (``ToolContext.zone``): the tools that need it read no statement for it.
        """
        home = self.store.member_home(user, household, read=home)
        return ToolContext(
            user=user,
            scope=home.member_scope(user),
            channel=channel,
            deps=replace(self, home=home),
            household=home.name,
            conversation=conversation,
            zone=zone_of(home.time_zone),
        )


def asker_zone(store: HouseholdStore, ctx: ToolContext[Any]) -> tzinfo:
    """The asker's time zone: as read with the member (``ctx.zone``), else the household's read now."""
    return ctx.zone if ctx.zone is not None else store.zone(ctx.household or "")


Ctx = ToolContext[HouseholdDeps]
