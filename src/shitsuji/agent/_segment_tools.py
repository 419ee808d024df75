"""Tools over conversation segments: the member's index of earlier segments, and loading one back.

Segments belong to the pair (household, user) of the verified speaker in ``ctx``; the
store they live in comes from the app's dependencies (anything with a ``segments``). A
segment that held outside text comes back as untrusted output: writes need cards again.

Asked with words, ``list_segments`` also finds the segments those words' facts were said in
when the app can recall facts (its dependencies have a ``memory``: the butler's do): "when did
we talk about the plumber?" finds the conversation whose summary never named the plumber.
"""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING, Annotated, Protocol, runtime_checkable

from pydantic import Field

from ..context import Segments
from ..context._window import _plain
from ..llm._tokens import estimate_tokens
from ._tools import Tool, ToolContext, ToolOutput, tool

if TYPE_CHECKING:  # the engine (numpy, the embedders) loads only where an app has one
    from ..memory import MemoryEngine

LOAD_BUDGET_TOKENS = 3000
FACTS_PER_SEGMENT_SEARCH = 100  # facts recalled to find the segments they were said in (the bench's pool)
SEGMENTS_OF_FACTS = 5  # the segments of recalled facts listed (a ranking: the fifth may be far)


class HasSegments(Protocol):
    """App dependencies that include the segment store."""

    @property
    def segments(self) -> Segments: ...


@runtime_checkable
class RecallsFacts(Protocol):
    """App dependencies that can also recall the speaker's facts (the butler's)."""

    @property
    def memory(self) -> MemoryEngine: ...


@tool(effect="read")
def list_segments(
    ctx: ToolContext[HasSegments],
    label: Annotated[
        str | None, Field(description="Only segments with this label, e.g. household.shopping.")
    ] = None,
    query: Annotated[
        str | None, Field(description="What was talked about: where it was said, or words in summaries.")
    ] = None,
) -> ToolOutput:
    """List earlier conversation segments (id, label, time, summary): where a query was said, then newest first."""
    found = ctx.deps.segments.index(ctx.household, ctx.user, label=label, query=query)
    if query and isinstance(ctx.deps, RecallsFacts):
        hits = ctx.deps.memory.recall(query, ctx.scope, k=FACTS_PER_SEGMENT_SEARCH, zone=ctx.zone or UTC)
        said = ctx.deps.segments.said_in(ctx.household, ctx.user, hits, label=label, limit=SEGMENTS_OF_FACTS)
        found = [*said, *(s for s in found if s not in said)]
    lines = "\n".join(s.index_line() for s in found) or "no earlier segments match"
    return ToolOutput(lines, untrusted=any(s.untrusted for s in found))


@tool(effect="read")
def load_segment(
    ctx: ToolContext[HasSegments], id: Annotated[str, Field(min_length=1, max_length=40)]
) -> ToolOutput:
    """Bring an earlier segment's messages back into this conversation, by the id list_segments gave."""
    segment = ctx.deps.segments.get(id, ctx.household, ctx.user)
    messages = ctx.deps.segments.load(id, ctx.household, ctx.user)
    lines: list[str] = []
    used = 0
    for message in messages:
        line = f"{message['role']}: {_plain(message)}"
        used += estimate_tokens(line)
        if used > LOAD_BUDGET_TOKENS:
            lines.append("[… the rest of the segment is left out to save space]")
            break
        lines.append(line)
    return ToolOutput(f"Archived segment {id}:\n" + "\n".join(lines), untrusted=segment.untrusted)


SEGMENT_TOOLS: tuple[Tool, ...] = (list_segments, load_segment)
