"""Which writes may run without a confirmation card, per channel. Fail-closed.

A tool not on a channel's allow-list needs a card; an unknown channel allows nothing but
``remember`` (which only touches the speaker's own memory) and ``open_panel`` (UI only). Once untrusted text (a web
page, a forwarded message) has entered the turn, the loop ignores the allow-list
altogether: every write needs a card.

External writes — tools marked ``external`` (they send something out of the household, e.g. an
issue to GitHub) — are a class of their own, known by the tool's mark rather than its name:
no allow-list lets one run without a card (a list naming one is ignored for it), and the loop
does not even propose one in a turn with outside text in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

ALWAYS_ALLOWED = frozenset({"remember", "open_panel"})  # own memory; a UI panel, no data


@dataclass(frozen=True, slots=True)
class ChannelPolicy:
    auto_run: frozenset[str] = frozenset()

    def may_auto_run(self, tool_name: str, *, tainted: bool, external: bool = False) -> bool:
        if tainted or external:
            return False
        return tool_name in ALWAYS_ALLOWED or tool_name in self.auto_run


DEFAULT_POLICIES: Mapping[str, ChannelPolicy] = MappingProxyType(
    {
        "app": ChannelPolicy(),
        # list additions in the member's own words (a recipe's missing ingredients go on the list too)
        "line": ChannelPolicy(
            frozenset({"add_shopping_item", "add_todo", "add_event", "add_missing_to_shopping_list"})
        ),
    }
)


def policy_for(channel: str, policies: Mapping[str, ChannelPolicy] = DEFAULT_POLICIES) -> ChannelPolicy:
    return policies.get(channel, ChannelPolicy())
