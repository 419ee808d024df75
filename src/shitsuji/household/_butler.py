"""The household butler: one wiring of stores, tools, assistant and conversation service for every channel.

The edge (the CLI, the web app's start-up) reads the settings once and builds a
``Butler``; every channel then drives ``butler.service`` with contexts from
``butler.member`` and holds no turn logic of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..agent import (
    AGENT_SCHEMA,
    Assistant,
    ChatService,
    Conversations,
    Mode,
    Proposals,
    Tool,
    Toolbox,
    ToolContext,
    TurnClaims,
    list_segments,
    load_segment,
)
from ..audit import AuditLog
from ..context import Segments, Summarizer
from ..llm import CHEAP_MODEL, NO_ENDPOINT, Model
from ..memory import MemoryEngine
from ..safety import InputFilter, Judge, Policy
from ..store import Database
from ._anniversary_tools import ANNIVERSARY_TOOLS
from ._deps import HouseholdDeps, asker_zone
from ._edit_tools import EDIT_TOOLS
from ._index import household_now, household_now_ahead
from ._money_tools import MONEY_TOOLS
from ._nisa_tools import NISA_TOOLS
from ._panels import open_panel
from ._recipe_tools import RECIPE_TOOLS
from ._records import Household
from ._routine_tools import ROUTINE_TOOLS
from ._schema import HOUSEHOLD_SCHEMA
from ._store import HouseholdStore
from ._tools import household_toolbox

if TYPE_CHECKING:
    from ..memory import ExtractionSettings

RECALLED_MEMORIES = 12
EARLIER_SEGMENTS = 5
SCHEMAS = (HOUSEHOLD_SCHEMA, AGENT_SCHEMA)
DOMAIN_TOOLS = (
    *EDIT_TOOLS,
    *ANNIVERSARY_TOOLS,
    *RECIPE_TOOLS,
    *NISA_TOOLS,
    *MONEY_TOOLS,
    *ROUTINE_TOOLS,
)  # the domains beyond the twelve: each in its own module


def butler_toolbox(*, panels: bool = False, extra_tools: Iterable[Tool] = ()) -> Toolbox:
    """The household tools and the segment tools (and ``open_panel`` where the channel has panels),
    and an app's ``extra_tools``."""
    return Toolbox(
        [
            *household_toolbox(),
            *DOMAIN_TOOLS,
            list_segments,
            load_segment,
            *([open_panel] if panels else []),
            *extra_tools,
        ]
    )


def _home(ctx: ToolContext[Any]) -> Household | None:
    """The household read when the member was verified (``HouseholdDeps.member``), if it is ctx's."""
    home = ctx.deps.home if isinstance(ctx.deps, HouseholdDeps) else None
    return home if home is not None and home.name == ctx.household else None


class Butler:
    """The household app over the process's one database, for the channels to drive."""

    def __init__(
        self,
        database: Database,
        memory: MemoryEngine,
        model: Model | None,
        *,
        modes: Mapping[str, Mode] | None = None,
        router_model: str = CHEAP_MODEL,
        extraction: ExtractionSettings | None = None,
        safety: Mapping[str, Any] | None = None,
        panels: bool = False,
        extra_tools: Iterable[Tool] = (),
        no_model: str = NO_ENDPOINT,
    ) -> None:
        """``extraction`` None: no memory extraction after replies (else its per-channel switches).
        ``safety``: a ``[safety]`` table for the input filter (``judge = true`` asks the cheap model
        about long or flagged input)."""
        self.database = database  # the process's one database, handed to every store
        self.path = database.target
        self.memory = memory
        self.model = model
        self.audit = memory.audit or AuditLog(database)
        memory.audit = self.audit  # the memory changes made through this butler are recorded too
        self.store = HouseholdStore(database)
        self.segments = Segments(database)
        self.proposals = Proposals(database, audit=self.audit)
        self.conversations = Conversations(database)
        self.claims = TurnClaims(database)
        self.claims.release_dead()  # turns of a process that died (kill -9) block nobody
        self.deps = HouseholdDeps(self.store, memory, self.segments)
        self.toolbox = butler_toolbox(panels=panels, extra_tools=extra_tools)
        assistant = None
        queue = None
        if model is not None:
            assistant = self._assistant(model, modes, router_model)
            if extraction is not None:
                from ..memory import ExtractionQueue, Extractor

                extractor = Extractor(model, memory, model_name=router_model, zone_of=self.store.zone)
                queue = ExtractionQueue(database, extractor, settings=extraction)
        table = dict(safety or {})
        judge = Judge(model, router_model) if model is not None and table.pop("judge", False) else None
        self.service = ChatService(
            input_filter=InputFilter(Policy.from_mapping(table, judge=judge)),
            toolbox=self.toolbox,
            proposals=self.proposals,
            conversations=self.conversations,
            segments=self.segments,
            claims=self.claims,
            assistant=assistant,
            extraction=queue,
            no_model=no_model,
        )

    def _assistant(self, model: Model, modes: Mapping[str, Mode] | None, router_model: str) -> Assistant:
        store, segments, memory = self.store, self.segments, self.memory
        assistant = Assistant(
            model=model,
            summarizer=Summarizer(model, model_name=router_model),
            segment_index=lambda ctx, hits: segments.earlier(
                ctx.household, ctx.user, label=ctx.segment, hits=hits, limit=EARLIER_SEGMENTS
            ),
            toolbox=self.toolbox,
            proposals=self.proposals,
            router_model=router_model,
            memories=lambda text, ctx: memory.recall(
                text, ctx.scope, k=RECALLED_MEMORIES, zone=asker_zone(store, ctx)
            ),
            count_index=lambda ctx: household_now(store, ctx.household or "", ctx.user, home=_home(ctx)),
            count_ahead=lambda ctx: household_now_ahead(
                store, ctx.household or "", ctx.user, home=_home(ctx)
            ),
        )
        if modes is not None:
            assistant.modes = dict(modes)
        return assistant

    def member(
        self, user: str, channel: str, *, household: str | None = None, home: Household | None = None
    ) -> ToolContext[HouseholdDeps]:
        """A verified member's context (they must belong to the household; ``home``: as read already)."""
        return self.deps.member(user, channel, household=household, home=home)

    def close(self) -> None:
        for part in (self.store, self.segments, self.proposals, self.conversations, self.claims, self.audit):
            part.close()
        if self.service.extraction is not None:
            self.service.extraction.close()
