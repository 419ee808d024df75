"""The household butler as an ``Assistant``: one wiring for every channel (terminal, web)."""

from __future__ import annotations

from collections.abc import Iterable

from ..agent import (
    Assistant,
    Proposals,
    Tool,
    Toolbox,
    configured_modes,
    list_segments,
    load_segment,
    router_model,
)
from ..context import Segments, Summarizer
from ..llm import Model
from ..memory import MemoryEngine
from ._index import count_index
from ._store import HouseholdStore
from ._tools import household_toolbox

RECALLED_MEMORIES = 12
EARLIER_SEGMENTS = 5


def butler_toolbox(extra_tools: Iterable[Tool] = ()) -> Toolbox:
    """The household tools, the segment tools, and ``extra_tools``."""
    return Toolbox([*household_toolbox(), list_segments, load_segment, *extra_tools])


def butler(
    model: Model,
    *,
    store: HouseholdStore,
    memory: MemoryEngine,
    proposals: Proposals,
    segments: Segments,
    extra_tools: Iterable[Tool] = (),
) -> Assistant:
    """The butler: household tools + segment tools (+ ``extra_tools``, e.g. ``open_panel`` where a UI has panels),
    the speaker's memories and the household's counts in every prompt, modes from the configuration."""
    return Assistant(
        model=model,
        summarizer=Summarizer(model, model_name=router_model()),
        segment_index=lambda ctx: [
            s.index_line() for s in segments.index(ctx.user, label=ctx.segment, limit=EARLIER_SEGMENTS)
        ],
        toolbox=butler_toolbox(extra_tools),
        proposals=proposals,
        modes=configured_modes(),
        router_model=router_model(),
        memories=lambda text, ctx: memory.recall(text, ctx.scope, k=RECALLED_MEMORIES),
        count_index=lambda ctx: count_index(store, ctx.household or "", store.today()),
    )
