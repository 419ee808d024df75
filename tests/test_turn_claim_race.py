"""Two turns on one conversation, the second's start overlapping the first's end (issue 25, pt25c).

Two tabs, LINE and the web app, or two app processes: a turn may begin while another one in the same
conversation is finishing. The claim lets one turn run at a time; what the second turn reads of the
conversation must come after its claim, or it runs on a read from before the first turn's answer —
its words and answer written at the positions the first turn's took, and the model shown a stale
history. Real SQLite and PostgreSQL, real threads; the second turn is held just before its claim's
statement through ``TurnClaims``' clock (a constructor argument), the one point between its read and
its claim the code offers.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from shitsuji.agent import Finished, Turn, TurnClaims, TurnEvent
from shitsuji.errors import NotFoundError
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ScriptedModel, text_response
from shitsuji.store import database

from .web_support import memory_engine

WAIT_S = 60.0  # generous: the machine is shared


class Gate:
    """A clock that holds the thread named ``held`` the first time it asks the time, until ``go``."""

    def __init__(self, held: str) -> None:
        self.held = held
        self.reached = threading.Event()
        self.go = threading.Event()

    def __call__(self) -> datetime:
        if threading.current_thread().name == self.held and not self.reached.is_set():
            self.reached.set()
            assert self.go.wait(WAIT_S), "the test never let the held turn go on"
        return datetime.now(UTC)


def run(butler: Butler, turn: Turn) -> list[TurnEvent]:
    async def collect() -> list[TurnEvent]:
        return [event async for event in butler.service.events(turn, mode="task")]

    return asyncio.run(collect())


def in_thread(name: str, work: Callable[[], Turn]) -> tuple[threading.Thread, list[Turn | BaseException]]:
    out: list[Turn | BaseException] = []

    def body() -> None:
        try:
            out.append(work())
        except BaseException as exc:  # reported by the test, not lost in the thread
            out.append(exc)

    thread = threading.Thread(target=body, name=name, daemon=True)
    thread.start()
    return thread, out


@pytest.mark.parametrize("named", [True, False], ids=["by_id", "latest"])
def test_a_turn_begun_while_another_finishes_reads_the_conversation_after_its_claim(
    target: str, named: bool
) -> None:
    db = database(target)
    HouseholdStore(db).create("futari", ["wife", "husband"])
    model = ScriptedModel([text_response("一つ目の返事です。"), text_response("二つ目の返事です。")])
    butler = Butler(db, memory_engine(target), model)
    gate = Gate("second")
    butler.service = replace(butler.service, claims=TurnClaims(db, clock=gate))
    ctx = butler.member("wife", "app", household="futari")
    conversation = butler.conversations.start("futari", "wife", "app").id
    asked = {"conversation": conversation} if named else {}

    first = butler.service.begin(ctx, "一つ目のメッセージ", **asked)  # claimed, in this thread
    first = butler.service.ready(first)  # its words kept; its model not asked yet
    # the second tab's turn begins now, while the first one runs, and is held just before its claim…
    thread, began = in_thread("second", lambda: butler.service.begin(ctx, "二つ目のメッセージ", **asked))
    assert gate.reached.wait(WAIT_S)
    done = run(butler, first)  # …the first turn answers, saves and lets its claim go meanwhile…
    assert isinstance(done[-1], Finished), done[-1]
    gate.go.set()  # …and the second claims the conversation, free again
    thread.join(WAIT_S)
    assert not thread.is_alive() and len(began) == 1
    second = began[0]
    assert isinstance(second, Turn), second
    assert isinstance(run(butler, second)[-1], Finished)

    rows = butler.conversations.rows(conversation)
    stored = [(r["seq"], r["role"], r["content"]) for r in rows]
    assert [(seq, role) for seq, role, _ in stored] == [
        (0, "user"),
        (1, "assistant"),
        (2, "user"),
        (3, "assistant"),
    ], stored
    texts = [str(r["content"]) for r in rows]
    assert "一つ目のメッセージ" in texts[0] and "二つ目のメッセージ" not in texts[0]  # nothing joined or lost
    assert "一つ目の返事" in texts[1] and "二つ目のメッセージ" in texts[2] and "二つ目の返事" in texts[3]
    # the model saw the first turn's answer when it answered the second
    shown = str(model.requests[-1].messages)
    assert "一つ目の返事" in shown and "二つ目のメッセージ" in shown
    butler.close()


def test_a_turn_takes_over_a_dead_process_claim_and_leaves_no_claim_on_anyone_else(target: str) -> None:
    """The paths where the claim's pick takes nothing: a claim left by a process that is gone (the
    conversation is claimed the old way, then read), another member's conversation (refused, nothing
    claimed), and no conversation yet (one started already claimed)."""
    db = database(target)
    HouseholdStore(db).create("futari", ["wife", "husband"])
    butler = Butler(
        db, memory_engine(target), ScriptedModel([text_response("はい。"), text_response("ええ。")])
    )
    wife = butler.member("wife", "app", household="futari")
    conversation = butler.conversations.start("futari", "wife", "app").id
    left = "from shitsuji.agent import TurnClaims; from shitsuji.store import database; import sys; "
    left += "TurnClaims(database(sys.argv[1])).claim(sys.argv[2])"  # and exits holding it
    subprocess.run([sys.executable, "-c", left, target, conversation], check=True, timeout=WAIT_S)
    assert butler.claims.held(conversation)
    turn = butler.service.begin(wife, "死んだ手の後で", conversation=conversation)
    assert isinstance(run(butler, turn)[-1], Finished) and not butler.claims.held(conversation)
    assert [r["role"] for r in butler.conversations.rows(conversation)] == ["user", "assistant"]

    husband = butler.member("husband", "app", household="futari")
    with pytest.raises(NotFoundError):
        butler.service.begin(husband, "妻の会話に", conversation=conversation)
    assert not butler.claims.held(conversation)

    first = butler.service.begin(husband, "はじめまして")  # no conversation of his yet: started, claimed
    assert butler.claims.held(first.conversation.id) and first.conversation.id != conversation
    assert isinstance(run(butler, first)[-1], Finished) and not butler.claims.held(first.conversation.id)
    butler.close()
