"""``shitsuji demo``: memory at work for a couple sharing a butler, offline, in a temporary database."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from ._app import STATE, app, console

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
def demo() -> None:
    """Show memory at work for two people sharing a household (nothing is kept afterwards)."""
    from ..memory import MemoryEngine, SQLiteMemoryStore, load_embedder

    with tempfile.TemporaryDirectory(prefix="shitsuji-demo-") as tmp:
        store = SQLiteMemoryStore(Path(tmp) / "demo.db")
        engine = MemoryEngine(store, load_embedder(STATE.settings().embedder))
        try:
            _run(engine)
        finally:
            store.close()


def _recall(engine: MemoryEngine, who: str, scope: str, query: str) -> None:
    console.print(f"\n[bold]{who}[/] asks: {query}")
    for hit in engine.recall(query, scope, k=3):
        mine = "own" if hit.memory.scope == scope else "shared" if hit.memory.scope == HOUSEHOLD else "OTHER"
        console.print(f"  {hit.score:.4f}  {escape(f'[{mine:>6}]')}  {hit.memory.content}")


def _run(engine: MemoryEngine) -> None:
    console.rule(f"shitsuji demo — embedder {engine.embedder.model_id}")
    for scope, text, category in FACTS:
        result = engine.remember(text, scope, category=category)
        console.print(f"remember {escape(f'[{scope}]')} {text}  → {result.memory.id}")

    _recall(engine, "wife", WIFE, "飲み物の好みは？")
    _recall(engine, "husband", HUSBAND, "what do I like to drink?")
    _recall(engine, "wife", WIFE, "ゴミ出しはいつ？")
    _recall(engine, "husband", HUSBAND, "食べられないものある？")
    console.print("  (the wife's shellfish allergy is hers alone: the husband never sees it)")

    repeat = engine.remember("紅茶はミルクティーが好き、砂糖なし。", WIFE)
    console.print(f"\nremember the same fact again → duplicate={repeat.duplicate}, id {repeat.memory.id}")

    forgotten = engine.forget(repeat.memory.id)
    console.print(f"forget {forgotten.id}")
    _recall(engine, "wife", WIFE, "紅茶")
    engine.restore(forgotten.id)
    console.print(f"restore {forgotten.id}")
    _recall(engine, "wife", WIFE, "紅茶")
