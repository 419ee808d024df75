"""The MCP server: a coding agent's memory tools, bound to one project scope.

The scope is fixed when the server starts (from its working directory, see ``_scope``)
and is never a tool argument, so an agent can neither write into nor read from another
project by naming it. Reads see the project's scope and its ancestors (the user's
cross-cutting notes, ranked lower); writes and deletions touch the project's own scope
only. Ids are checked the same way: an id outside the visible lineage answers exactly as
an id that does not exist, so guessing ids reveals nothing.

Tools are synchronous (the SDK runs them on worker threads); ``ShitsujiError`` becomes a
``ToolError`` so the agent reads our message, not a generic "Error executing tool".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it for TypedDict schemas before Python 3.12

from .. import __version__
from ..errors import NotFoundError, ShitsujiError, UserInputError
from ..memory import KEYS_DESCRIPTION, MAX_KEY_CHARS, MAX_KEYS, Memory, MemoryEngine, lineage

log = logging.getLogger(__name__)

LIST_LIMIT: Final = 100
PREVIEW_CHARS: Final = 200

INSTRUCTIONS: Final = """\
Long-term memory for this project (shitsuji). Call `recall` before work where past decisions,
conventions or known pitfalls may matter, and `remember` when you learn something a future
session should know. Memories are kept per project directory; the user's own notes on parent
folders are visible too. You cannot choose where memories go.\
"""

REMEMBER_DOC: Final = """\
Save one durable fact about this project for future sessions.

Worth remembering: decisions and their reasons ("we use uv, not pip, because …"), conventions
(naming, layout, how to run tests or release), pitfalls and the fix that worked ("migrations
fail on SQLite < 3.35; upgrade with …"), facts about the environment that took effort to find.
Write it so it stands alone, one fact per call; a long design note may be one document.

Not worth remembering: transient chatter, the current task's progress, things obvious from
the code or the README, secrets (keys, passwords, tokens).

If the project already holds the same fact, nothing is added and the existing memory is
returned with duplicate=true. The memory is stored in this project's scope, which you cannot
change."""

RECALL_DOC: Final = """\
Search this project's memories (and the user's notes on parent folders, ranked lower) by
meaning and by words. Returns the matching passage of each memory with its id, score and
scope, not whole documents (partial=true marks a passage of a longer memory): call
read_memory with an id for the full text."""

READ_DOC: Final = "Read one memory in full, by the id that recall or list_memories gave."

DEDUPE_DOC: Final = """\
Check whether this project already holds a fact before saving it; nothing is written.
Returns the existing memory when there is one."""

FORGET_DOC: Final = """\
Forget a memory of this project that is wrong or obsolete (it disappears from recall; the
user can restore it). Memories on parent folders are the user's and cannot be forgotten here."""

LIST_DOC: Final = f"""\
List the memories visible from this project (its own and the user's notes on parent folders),
newest first, at most {LIST_LIMIT}, each with a short preview; read_memory gives the full text."""

Content = Annotated[str, Field(description="The fact or note, in any language.", max_length=20_000)]
Category = Annotated[
    str,
    Field(description="One short word: decision, convention, pitfall, environment, preference, misc …"),
]
Keys = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)]] | None,
    Field(
        max_length=MAX_KEYS,
        description=f"{KEYS_DESCRIPTION} Words a later question may use that the fact does not, each at most "
        f"{MAX_KEY_CHARS} characters (e.g. for 'Release builds are signed on the CI runner': code signing, "
        "署名, release, リリース). Never shown as the fact.",
    ),
]
MemoryId = Annotated[str, Field(description="A memory id from recall or list_memories.")]
Query = Annotated[str, Field(description="What to look for, in any language.")]
HowMany = Annotated[int, Field(ge=1, le=20, description="How many memories to return (1-20).")]


class RecallHit(TypedDict):
    id: str
    scope: str
    category: str
    score: float
    chunk: str
    chunk_index: int
    partial: bool


class RecallResult(TypedDict):
    scope: str
    hits: list[RecallHit]


class MemoryRecord(TypedDict):
    id: str
    scope: str
    category: str
    content: str
    importance: float
    created_at: str
    updated_at: str
    provenance: dict[str, Any]


class RememberResult(TypedDict):
    id: str
    scope: str
    duplicate: bool
    similarity: float | None
    content: str


class DedupeResult(TypedDict):
    scope: str
    duplicate: bool
    id: str | None
    similarity: float | None
    content: str | None


class ForgetResult(TypedDict):
    id: str
    scope: str
    forgotten: Literal[True]


class ListedMemory(TypedDict):
    id: str
    scope: str
    category: str
    preview: str
    created_at: str


class ListResult(TypedDict):
    scope: str
    total: int
    memories: list[ListedMemory]


@contextmanager
def _as_tool_error() -> Iterator[None]:
    """Show our own error messages to the agent (the SDK hides unexpected ones)."""
    try:
        yield
    except ShitsujiError as exc:
        raise ToolError(str(exc)) from exc


class ProjectMemory:
    """The tools' logic over one engine and one project scope; no MCP types here."""

    def __init__(
        self, engine: MemoryEngine, scope: str, *, root: Path | None = None, zone: tzinfo = UTC
    ) -> None:
        """``zone``: the user's time zone (the machine's, read at start-up): a fact is indexed under the
        day it was said there, and "last month" is a span of its calendar."""
        self.engine = engine
        self.scope = scope
        self.zone = zone
        self.visible = lineage(scope)
        self.provenance: dict[str, Any] = {"channel": "mcp"}
        if root is not None:
            self.provenance["project"] = str(root)

    def remember(self, content: str, category: str = "misc", keys: list[str] | None = None) -> RememberResult:
        result = self.engine.remember(
            content,
            self.scope,
            category=category,
            provenance=self.provenance,
            keys=keys,
            keys_by="model",
            zone=self.zone,
        )
        m = result.memory
        similarity = None if result.similarity is None else round(result.similarity, 4)
        return RememberResult(
            id=m.id, scope=m.scope, duplicate=result.duplicate, similarity=similarity, content=m.content
        )

    def recall(self, query: str, k: int = 5) -> RecallResult:
        hits = self.engine.recall(query, self.scope, k=k, zone=self.zone)
        return RecallResult(
            scope=self.scope,
            hits=[
                RecallHit(
                    id=h.memory.id,
                    scope=h.memory.scope,
                    category=h.memory.category,
                    score=round(h.score, 4),
                    chunk=h.excerpt,
                    chunk_index=h.chunk,
                    partial=h.excerpt != h.memory.content,
                )
                for h in hits
            ],
        )

    def read(self, memory_id: str) -> MemoryRecord:
        m = self._visible(memory_id)
        return MemoryRecord(
            id=m.id,
            scope=m.scope,
            category=m.category,
            content=m.content,
            importance=m.importance,
            created_at=m.created_at.isoformat(),
            updated_at=m.updated_at.isoformat(),
            provenance=m.provenance,
        )

    def dedupe(self, content: str) -> DedupeResult:
        found = self.engine.find_duplicate(content, self.scope)
        if found is None:
            return DedupeResult(scope=self.scope, duplicate=False, id=None, similarity=None, content=None)
        similarity = None if found.similarity is None else round(found.similarity, 4)
        return DedupeResult(
            scope=self.scope,
            duplicate=True,
            id=found.memory.id,
            similarity=similarity,
            content=found.memory.content,
        )

    def forget(self, memory_id: str) -> ForgetResult:
        m = self._visible(memory_id)
        if m.scope != self.scope:
            raise UserInputError(
                f"memory {m.id} belongs to {m.scope}, a parent folder shared with other projects; "
                f"only the user can forget it (`shitsuji forget {m.id}`)"
            )
        forgotten = self.engine.forget(m.id, by="agent")
        return ForgetResult(id=forgotten.id, scope=forgotten.scope, forgotten=True)

    def list_visible(self) -> ListResult:
        visible = set(self.visible)
        found = [m for m in self.engine.list_memories(self.visible[-1]) if m.scope in visible]
        newest = sorted(found, key=lambda m: m.created_at, reverse=True)[:LIST_LIMIT]
        return ListResult(
            scope=self.scope,
            total=len(found),
            memories=[
                ListedMemory(
                    id=m.id,
                    scope=m.scope,
                    category=m.category,
                    preview=_preview(m.content),
                    created_at=m.created_at.isoformat(),
                )
                for m in newest
            ],
        )

    def _visible(self, memory_id: str) -> Memory:
        """The live memory with this id if this project may see it; otherwise "not found"."""
        missing = NotFoundError(
            f"no memory with id {memory_id.strip()!r} in this project ({self.scope}): "
            "use an id from recall or list_memories"
        )
        try:
            return self.engine.get(memory_id, visible_scopes=self.visible, deleted=False)
        except NotFoundError:
            raise missing from None


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def build_server(
    engine: MemoryEngine, scope: str, *, root: Path | None = None, zone: tzinfo = UTC
) -> MCPServer:
    """An ``MCPServer`` whose six tools read and write ``scope`` through ``engine`` (in ``zone``, the user's)."""
    memory = ProjectMemory(engine, scope, root=root, zone=zone)
    server: MCPServer = MCPServer(
        "shitsuji", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(
        description=REMEMBER_DOC, annotations=ToolAnnotations(open_world_hint=False), structured_output=True
    )
    def remember(content: Content, category: Category = "misc", keys: Keys = None) -> RememberResult:
        with _as_tool_error():
            return memory.remember(content, category, keys)

    @server.tool(description=RECALL_DOC, annotations=reading, structured_output=True)
    def recall(query: Query, k: HowMany = 5) -> RecallResult:
        with _as_tool_error():
            return memory.recall(query, k)

    @server.tool(description=READ_DOC, annotations=reading, structured_output=True)
    def read_memory(id: MemoryId) -> MemoryRecord:
        with _as_tool_error():
            return memory.read(id)

    @server.tool(description=DEDUPE_DOC, annotations=reading, structured_output=True)
    def dedupe(content: Content) -> DedupeResult:
        with _as_tool_error():
            return memory.dedupe(content)

    @server.tool(
        description=FORGET_DOC,
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False),
        structured_output=True,
    )
    def forget(id: MemoryId) -> ForgetResult:
        with _as_tool_error():
            return memory.forget(id)

    @server.tool(description=LIST_DOC, annotations=reading, structured_output=True)
    def list_memories() -> ListResult:
        with _as_tool_error():
            return memory.list_visible()

    return server


def warm_up(engine: MemoryEngine, scope: str) -> threading.Thread:
    """Load the embedding model and the indexes off the request path, so the first call is quick."""

    def run() -> None:
        try:
            engine.recall("warm up", scope, k=1)
        except ShitsujiError as exc:  # the first real call will report it to the agent
            log.warning("warming up the memory index failed: %s", exc)

    thread = threading.Thread(target=run, name="shitsuji-warm-up", daemon=True)
    thread.start()
    return thread


def serve(
    engine: MemoryEngine,
    scope: str,
    *,
    root: Path | None = None,
    http_port: int | None = None,
    zone: tzinfo = UTC,
) -> None:
    """Run the server on stdio (the default) or streamable HTTP on 127.0.0.1 until the client leaves."""
    server = build_server(engine, scope, root=root, zone=zone)
    warm_up(engine, scope)
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
