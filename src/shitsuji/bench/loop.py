"""Loop overhead per round: the agent loop with a scripted model and a trivial read tool.

What is measured is our own work per round (building the request, dispatching tools,
assembling results), not a model's latency: the scripted model answers instantly.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ..agent import Mode, Proposals, Toolbox, ToolContext, policy_for, run_turn, tool
from ..llm import ScriptedModel, text_response, tool_use_response
from ..store import open_database


@tool(effect="read")
def list_todos(ctx: ToolContext[None]) -> str:
    """List the to-dos."""
    return "ゴミ出し / 牛乳を買う"


@tool(effect="read")
async def list_events(ctx: ToolContext[None]) -> str:
    """List the events."""
    return "12/3 10:00 歯医者"


def run_loop_bench(*, rounds: int = 8, turns: int = 200) -> dict[str, Any]:
    toolbox = Toolbox([list_todos, list_events])
    ctx = ToolContext(user="bench", scope="bench/loop", channel="app", deps=None)
    mode = Mode("task", "scripted", max_rounds=rounds)
    script = [
        tool_use_response((f"t{i}a", "list_todos", {}), (f"t{i}b", "list_events", {}))
        for i in range(rounds - 1)
    ]
    per_round: list[float] = []
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-") as tmp:
        proposals = Proposals(open_database(Path(tmp) / "loop.db"))

        async def one_turn() -> float:
            model = ScriptedModel([*script, text_response("done")])
            start = time.perf_counter()
            steps = run_turn(
                model,
                mode,
                system=[{"type": "text", "text": "bench"}],
                messages=[{"role": "user", "content": "今日は？"}],
                toolbox=toolbox,
                ctx=ctx,
                policy=policy_for("app"),
                proposals=proposals,
            )
            async for _ in steps:
                pass
            return (time.perf_counter() - start) / rounds

        async def all_turns() -> None:
            for _ in range(turns):
                per_round.append(await one_turn())

        asyncio.run(all_turns())
        proposals.close()
    return {
        "rounds_per_turn": rounds,
        "turns": turns,
        "round_overhead_p50_ms": round(statistics.median(per_round) * 1000, 3),
        "round_overhead_p95_ms": round(sorted(per_round)[int(len(per_round) * 0.95) - 1] * 1000, 3),
    }
