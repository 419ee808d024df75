"""``shitsuji demo``: memory at work for a couple sharing a butler, offline, in a temporary database."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ._app import STATE, JsonFlag, app, console, print_json

if TYPE_CHECKING:
    from ..memory import MemoryEngine

HOUSEHOLD = "household/futari"
WIFE = f"{HOUSEHOLD}/user/wife"
HUSBAND = f"{HOUSEHOLD}/user/husband"

FACTS = [
    (WIFE, "紅茶はミルクティーが好き、砂糖なし", "preference"),
    (WIFE, "Allergic to shellfish — no shrimp or crab", "profile"),
    (WIFE, "母の誕生日は3月14日", "event"),
    (HUSBAND, "コーヒーはブラックしか飲まない", "preference"),
    (HUSBAND, "Plays futsal every Thursday night", "event"),
    (HUSBAND, "出身は沖縄", "profile"),
    (HOUSEHOLD, "ゴミの日は月曜と木曜", "misc"),
    (HOUSEHOLD, "The wifi password is on the fridge", "misc"),
]


@app.command()
def demo(as_json: JsonFlag = False) -> None:
    """Show memory at work for two people sharing a household (nothing is kept afterwards)."""
    from ..memory import MemoryEngine, load_embedder, open_store

    with tempfile.TemporaryDirectory(prefix="shitsuji-demo-") as tmp:
        store = open_store(Path(tmp) / "demo.db")
        engine = MemoryEngine(store, load_embedder(STATE.settings().embedder))
        try:
            steps = _run(engine, show=not as_json)
        finally:
            store.close()
    if as_json:
        print_json({"embedder": engine.embedder.model_id, "steps": steps})


Step = dict[str, Any]


def _recall(engine: MemoryEngine, who: str, scope: str, query: str, show: bool) -> Step:
    if show:
        console.print(f"\n[bold]{who}[/] asks: {query}")
    hits = []
    for hit in engine.recall(query, scope, k=3):
        mine = "own" if hit.memory.scope == scope else "shared" if hit.memory.scope == HOUSEHOLD else "OTHER"
        hits.append(
            {"id": hit.memory.id, "content": hit.memory.content, "whose": mine, "score": round(hit.score, 4)}
        )
        if show:
            console.print(f"  {hit.score:.4f}  {escape(f'[{mine:>6}]')}  {hit.memory.content}")
    return {"step": "recall", "who": who, "query": query, "hits": hits}


def _run(engine: MemoryEngine, *, show: bool) -> list[Step]:
    say = console.print if show else (lambda *_a, **_k: None)
    if show:
        console.rule(f"shitsuji demo — embedder {engine.embedder.model_id}")
    steps: list[Step] = []
    for scope, text, category in FACTS:
        result = engine.remember(text, scope, category=category)
        steps.append({"step": "remember", "scope": scope, "content": text, "id": result.memory.id})
        say(f"remember {escape(f'[{scope}]')} {text}  → {result.memory.id}")

    steps.append(_recall(engine, "wife", WIFE, "飲み物の好みは？", show))
    steps.append(_recall(engine, "husband", HUSBAND, "what do I like to drink?", show))
    steps.append(_recall(engine, "wife", WIFE, "ゴミ出しはいつ？", show))
    steps.append(_recall(engine, "husband", HUSBAND, "食べられないものある？", show))
    say("  (the wife's shellfish allergy is hers alone: the husband never sees it)")

    repeat = engine.remember("紅茶はミルクティーが好き、砂糖なし。", WIFE)
    steps.append({"step": "remember again", "duplicate": repeat.duplicate, "id": repeat.memory.id})
    say(f"\nremember the same fact again → duplicate={repeat.duplicate}, id {repeat.memory.id}")

    forgotten = engine.forget(repeat.memory.id)
    steps.append({"step": "forget", "id": forgotten.id})
    say(f"forget {forgotten.id}")
    steps.append(_recall(engine, "wife", WIFE, "紅茶", show))
    engine.restore(forgotten.id)
    steps.append({"step": "restore", "id": forgotten.id})
    say(f"restore {forgotten.id}")
    steps.append(_recall(engine, "wife", WIFE, "紅茶", show))
    return steps
