"""Claude's memory tool with shitsuji as its storage, through the Anthropic SDK's own tool runner.

    python examples/claude_memory_tool.py [DATABASE]

With ANTHROPIC_API_KEY set it talks to Claude; without, to a small local stand-in that answers the way
Claude does here (it views /memories, writes a file, then says so), so the example runs offline.
Afterwards the file is an ordinary shitsuji memory: `shitsuji recall 紅茶 --scope household/futari/user/wife`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anthropic

from shitsuji.claude_memory import ShitsujiMemoryTool, household_scopes
from shitsuji.llm import LoopbackServer, QuietHandler
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store

CALLS = [
    {"command": "view", "path": "/memories"},
    {"command": "create", "path": "/memories/private/drinks.md", "file_text": "紅茶が好き（砂糖なし）"},
]


class StandIn(LoopbackServer):
    """Answers /v1/messages like Claude would here: one memory call per reply, then a sentence."""

    def __init__(self) -> None:
        stand_in = self
        self.turn = 0  # one conversation: the replies come in order

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["content-length"]))
                body = json.dumps(stand_in.reply(stand_in.turn)).encode()
                stand_in.turn += 1
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)

    def reply(self, turn: int) -> dict[str, Any]:
        if turn < len(CALLS):
            content: list[dict[str, Any]] = [
                {"type": "tool_use", "id": f"toolu_{turn}", "name": "memory", "input": CALLS[turn]}
            ]
        else:
            content = [{"type": "text", "text": "紅茶がお好きなこと、覚えておきます。"}]
        usage = {"input_tokens": 10, "output_tokens": 10}
        stop = "tool_use" if turn < len(CALLS) else "end_turn"
        return {
            "id": f"msg_{turn}",
            "type": "message",
            "role": "assistant",
            "model": "stand-in",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }


def main(database: str) -> None:
    store = open_store(database)
    engine = MemoryEngine(store, HashEmbedder())
    memory = ShitsujiMemoryTool(engine, household_scopes("futari", "wife"), actor="futari/wife")
    stand_in = None if os.environ.get("ANTHROPIC_API_KEY") else StandIn()
    with stand_in.running() if stand_in else contextlib.nullcontext():
        client = (
            anthropic.Anthropic(base_url=stand_in.url, api_key="offline")
            if stand_in
            else anthropic.Anthropic()
        )
        runner = client.beta.messages.tool_runner(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            tools=[memory],
            messages=[{"role": "user", "content": "紅茶が好きです。砂糖は入れません。覚えておいて。"}],
        )
        final = runner.until_done()
    print("Claude:", "".join(b.text for b in final.content if b.type == "text"))
    for hit in engine.recall("紅茶", "household/futari/user/wife"):
        print(f"remembered {hit.memory.id[:8]} in {hit.memory.scope}: {hit.memory.content}")
    store.close()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(str(Path(tmp) / "memory.db"))
