"""Tools over conversation segments: the index, loading one back, and asking the UI for a panel.

``open_panel`` does not label anything itself: it asks the channel to open the panel, and
the channel — as when a person opens it — starts the segment with the panel's label.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ..context import Segments
from ..context._window import _plain
from ..errors import UserInputError
from ..llm._tokens import estimate_tokens
from ._tools import Tool, ToolContext, tool

PANELS = ("shopping", "calendar", "todos", "budget")
LOAD_BUDGET_TOKENS = 3000


def _segments(ctx: ToolContext) -> Segments:
    found = ctx.services.get("segments")
    if not isinstance(found, Segments):
        raise UserInputError("conversation segments are not available in this channel")
    return found


@tool(effect="read")
def list_segments(
    ctx: ToolContext,
    label: Annotated[
        str | None, Field(description="Only segments with this label, e.g. household.shopping.")
    ] = None,
    query: Annotated[str | None, Field(description="Words to look for in the segments' summaries.")] = None,
) -> str:
    """List earlier conversation segments (id, label, time, summary), newest first."""
    found = _segments(ctx).index(ctx.user, label=label, query=query)
    return "\n".join(s.index_line() for s in found) or "no earlier segments match"


@tool(effect="read")
def load_segment(ctx: ToolContext, id: Annotated[str, Field(min_length=1, max_length=40)]) -> str:
    """Bring an earlier segment's messages back into this conversation, by the id list_segments gave."""
    messages = _segments(ctx).load(id, ctx.user)
    lines: list[str] = []
    used = 0
    for message in messages:
        line = f"{message['role']}: {_plain(message)}"
        used += estimate_tokens(line)
        if used > LOAD_BUDGET_TOKENS:
            lines.append("[… the rest of the segment is left out to save space]")
            break
        lines.append(line)
    return f"Archived segment {id}:\n" + "\n".join(lines)


@tool(effect="write", summary=lambda a: f"{a['name']} パネルを開く")
def open_panel(ctx: ToolContext, name: Literal["shopping", "calendar", "todos", "budget"]) -> str:
    """Open a panel beside the chat (shopping, calendar, todos, budget) when the person asks for panel work."""
    events: Any = ctx.services.get("ui_events")
    if not isinstance(events, list):
        return f"there is no panel to open in the {ctx.channel} channel"
    events.append({"open_panel": name, "label": f"household.{name}"})
    return f"the {name} panel is open"


SEGMENT_TOOLS: tuple[Tool, ...] = (list_segments, load_segment, open_panel)
