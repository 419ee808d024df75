"""Memory commands: remember, recall, dedupe, list, show, forget, restore, purge, reindex, stats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from ._app import STATE, JsonFlag, ScopeOpt, app, console, err_console, print_json

if TYPE_CHECKING:
    from ..memory import Memory


def _short(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _memory_table(memories: list[Memory], title: str) -> Table:
    table = Table(title=title, show_lines=False)
    for col in ("id", "scope", "category", "imp.", "content"):
        table.add_column(col, overflow="fold")
    for m in memories:
        table.add_row(m.id, m.scope, m.category, f"{m.importance:.2f}", _short(m.content))
    return table


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="The fact to remember (one fact).")],
    scope: ScopeOpt,
    category: Annotated[
        str, typer.Option("--category", "-c", help="profile, preference, media, event, misc …")
    ] = "misc",
    importance: Annotated[float, typer.Option("--importance", "-i", help="0 to 1.")] = 0.5,
    as_json: JsonFlag = False,
) -> None:
    """Store a fact in SCOPE, unless the scope already holds it (then report that one)."""
    # indexed under the day it was said in the user's zone (the machine's, ``TZ``), not UTC's
    zone = STATE.settings().time_zone
    result = STATE.engine().remember(text, scope, category=category, importance=importance, zone=zone)
    if as_json:
        print_json(result.to_json())
    elif result.duplicate:
        console.print(f"already remembered as [bold]{result.memory.id}[/]: {result.memory.content}")
    else:
        console.print(f"remembered [bold]{result.memory.id}[/] in {result.memory.scope}")


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to look for, in any language.")],
    scope: ScopeOpt,
    k: Annotated[int, typer.Option("-k", "--k", min=1, max=1000, help="How many hits.")] = 5,
    as_json: JsonFlag = False,
) -> None:
    """Find the memories that best match QUERY, from SCOPE and its ancestors."""
    STATE.require_database()
    engine = STATE.engine()
    if (warning := engine.index_warning()) is not None:
        err_console.print(f"warning: {warning}", markup=False, style="yellow")
    # a hit scored 0 matched nothing (neither words nor meaning): it would only pad the list
    zone = STATE.settings().time_zone  # "last month" is the user's
    hits = [h for h in engine.recall(query, scope, k=k, zone=zone) if round(h.score, 4) > 0]
    if as_json:
        print_json([h.to_json() for h in hits])
        return
    if not hits:
        console.print("nothing relevant remembered")
        return
    table = Table()
    for col in ("score", "id", "scope", "category", "content"):
        table.add_column(col, overflow="fold")
    for h in hits:
        table.add_row(
            f"{h.score:.4f}", h.memory.id, h.memory.scope, h.memory.category, _short(h.memory.content)
        )
    console.print(table)


@app.command()
def dedupe(
    text: Annotated[str, typer.Argument(help="Text to check.")], scope: ScopeOpt, as_json: JsonFlag = False
) -> None:
    """Show which memory in SCOPE the TEXT would duplicate (nothing is written)."""
    STATE.require_database()
    found = STATE.engine().find_duplicate(text, scope)
    if as_json:
        print_json(found.to_json() if found else {"duplicate": False})
    elif found is None:
        console.print("no duplicate: remembering it would add a new memory")
    else:
        console.print(
            f"duplicate of [bold]{found.memory.id}[/] (similarity {found.similarity:.3f}): {found.memory.content}"
        )


@app.command("list")
def list_(
    scope: Annotated[
        str | None, typer.Option("--scope", "-s", help="Only this scope and those below it.")
    ] = None,
    deleted: Annotated[bool, typer.Option("--deleted", help="List forgotten memories instead.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """List memories, oldest first."""
    STATE.require_database()
    memories = list(STATE.engine().list_memories(scope, deleted=deleted, limit=limit))
    if as_json:
        print_json([m.to_json() for m in memories])
    else:
        console.print(_memory_table(memories, "forgotten memories" if deleted else "memories"))


def _show(memory: Memory, as_json: bool, verb: str | None = None) -> None:
    if as_json:
        print_json(memory.to_json())
        return
    if verb:
        console.print(f"{verb} [bold]{memory.id}[/]: {_short(memory.content)}")
        return
    for key, value in memory.to_json().items():
        console.print(f"[bold]{key:>15}[/]  {value if value not in (None, {}) else '-'}")


@app.command()
def show(
    memory_id: Annotated[str, typer.Argument(help="Memory id (or a unique prefix).")],
    as_json: JsonFlag = False,
) -> None:
    """Show one memory with all its fields."""
    STATE.require_database()
    _show(STATE.engine().get(memory_id), as_json)


@app.command()
def forget(memory_id: Annotated[str, typer.Argument(help="Memory id.")], as_json: JsonFlag = False) -> None:
    """Forget a memory (soft delete: hidden from recall until restored or purged)."""
    STATE.require_database()
    _show(STATE.engine().forget(memory_id), as_json, "forgot")


@app.command()
def restore(memory_id: Annotated[str, typer.Argument(help="Memory id.")], as_json: JsonFlag = False) -> None:
    """Bring back a forgotten memory."""
    STATE.require_database()
    _show(STATE.engine().restore(memory_id), as_json, "restored")


@app.command()
def purge(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False, as_json: JsonFlag = False
) -> None:
    """Delete forgotten memories for good (asks first)."""
    STATE.require_database()
    engine = STATE.engine()
    count = sum(1 for _ in engine.list_memories(deleted=True))
    if count and not yes and not typer.confirm(f"Delete {count} forgotten memories for good?", default=False):
        raise typer.Abort()
    removed = engine.purge() if count else 0
    if as_json:
        print_json({"purged": removed})
    else:
        console.print(f"purged {removed} forgotten memories")


@app.command()
def reindex(
    graph_only: Annotated[
        bool,
        typer.Option(
            "--graph-only",
            help="Only run the background upkeep (PostgreSQL: build a pending vector search graph, rewrite "
            "or gather vector rows, fold term counts) and wait for it; re-embed nothing.",
        ),
    ] = False,
    wait_graph: Annotated[
        bool, typer.Option("--wait-graph", help="Wait for the vector search graph to be built (PostgreSQL).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Rebuild every derived index (keywords and vectors) from the rows."""
    from ._graph import wait_for_graph

    STATE.require_database()
    engine = STATE.engine()
    if graph_only:
        graph = wait_for_graph(engine.store, quiet=as_json)
        if as_json:
            print_json(graph)
        elif not graph["graph_built"]:
            console.print("no vector search graph is pending")
        return
    with Progress(console=console, disable=as_json, transient=True) as bar:
        task = bar.add_task(f"embedding with {engine.embedder.model_id}", total=None)
        count = engine.reindex(progress=lambda done, total: bar.update(task, completed=done, total=total))
    if not as_json:
        console.print(f"reindexed {count} memories with {engine.embedder.model_id}")
    graph = wait_for_graph(engine.store, quiet=as_json) if wait_graph else {}
    if as_json:
        print_json({"reindexed": count, "embedding_model": engine.embedder.model_id, **graph})


@app.command()
def stats(as_json: JsonFlag = False) -> None:
    """Counts by scope, category and embedding model."""
    STATE.require_database()
    s = STATE.engine().stats()
    data = {
        "path": s.path,
        "schema_version": s.schema_version,
        "memories": s.memories,
        "deleted": s.deleted,
        "indexed": s.indexed,
        "by_scope": s.by_scope,
        "by_category": s.by_category,
        "embedding_models": s.embedding_models,
    }
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        console.print(f"[bold]{key:>16}[/]  {value}")
