"""``kill -9`` and a restart, on both engines (issue 19).

A process killed mid-turn leaves its claim behind: the next process answers at once (no 409 for the
rest of the lease). A process killed while carrying out an approved card leaves the card
"interrupted" for its owner, never half done: killed inside the household write, nothing was
written and a retry runs it exactly once; killed after it, the write and "approved" committed
together and nothing is offered again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shitsuji.agent import Proposals, Toolbox, ToolContext, TurnClaims, tool
from shitsuji.audit import AuditLog
from shitsuji.household import HouseholdStore
from shitsuji.store import database

ROOT = Path(__file__).resolve().parent.parent
PAUSE = "SHITSUJI_TEST_PAUSE"  # set in the process to be killed only


def wife(target: str) -> ToolContext[str]:
    return ToolContext(
        deps=target, user="wife", scope="household/futari/user/wife", channel="app", household="futari"
    )


def _pause(where: str) -> None:
    if os.environ.get(PAUSE) == where:
        print(where, flush=True)
        time.sleep(120)


@tool(effect="write")
def add_two_todos(ctx: ToolContext[str], title: str) -> str:
    """Add two to-dos in one household write (pausing inside or after it when told to)."""
    db = database(ctx.deps)
    store = HouseholdStore(db)
    with db.write():  # one transaction: both rows or neither
        store.add_todo("futari", f"{title} 1", by=ctx.user)
        _pause("inside")
        store.add_todo("futari", f"{title} 2", by=ctx.user)
    _pause("after")
    return "added"


BOX = Toolbox([add_two_todos])

_APPROVER = """
import asyncio, sys
from shitsuji.agent import Proposals
from shitsuji.audit import AuditLog
from shitsuji.store import database
from tests.test_crash_recovery import BOX, wife
db = database(sys.argv[1])
asyncio.run(Proposals(db, audit=AuditLog(db)).approve(sys.argv[2], wife(sys.argv[1]), BOX))
"""

_TURN = """
import sys, time
from shitsuji.agent import TurnClaims
from shitsuji.store import database
TurnClaims(database(sys.argv[1])).claim("c1")
print("claimed", flush=True)
time.sleep(120)
"""


def _killed_at(script: str, target: str, *args: str, when: str) -> None:
    """Run ``script`` in a process of its own and ``kill -9`` it once it prints ``when``."""
    victim = subprocess.Popen(
        [sys.executable, "-c", script, target, *args],
        cwd=ROOT,
        env={**os.environ, PAUSE: when},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert victim.stdout is not None
    line = victim.stdout.readline()
    if line != f"{when}\n":
        victim.kill()
        pytest.fail(f"the process never got to {when!r}: {victim.communicate(timeout=60)}")
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=60)


def test_a_turn_killed_mid_way_blocks_nobody(target: str) -> None:
    _killed_at(_TURN, target, when="claimed")
    claims = TurnClaims(database(target))  # the restarted process, within the dead claim's lease
    assert claims.held("c1")
    claims.claim("c1")  # answered at once: the dead process's claim is released, not waited out
    other = TurnClaims(database(target))
    with pytest.raises(Exception, match="still answering"):  # a live holder still excludes others
        other.claim("c1")


def test_claims_of_dead_processes_are_released_at_start(target: str) -> None:
    _killed_at(_TURN, target, when="claimed")
    claims = TurnClaims(database(target))
    assert claims.release_dead() == 1 and not claims.held("c1")


def _setup(target: str) -> tuple[Proposals, HouseholdStore, AuditLog, str]:
    db = database(target)
    store = HouseholdStore(db)
    store.create("futari", ["wife", "husband"])
    audit = AuditLog(db)
    proposals = Proposals(db, audit=audit)
    card = proposals.propose(add_two_todos, {"title": "牛乳"}, wife(target))
    return proposals, store, audit, card.id


def _approvals(audit: AuditLog, card: str) -> list[str]:
    return [
        e.action
        for e in audit.events(household="futari")
        if e.subject == card and e.action != "proposal.made"
    ]


def test_a_card_killed_inside_its_write_is_interrupted_and_a_retry_runs_it_once(target: str) -> None:
    proposals, store, audit, card = _setup(target)
    _killed_at(_APPROVER, target, card, when="inside")
    assert store.todos("futari") == []  # never half done
    seen = proposals.get(card)
    assert seen.status == "running" and seen.interrupted and seen.to_json()["interrupted"]
    refused = asyncio.run(proposals.approve(card, wife(target), BOX))
    assert (
        not refused.done and refused.code == "interrupted" and not proposals.reject(card, wife(target)).done
    )
    stranger = ToolContext(deps=target, user="husband", scope="x", channel="app", household="futari")
    assert asyncio.run(proposals.retry(card, stranger, BOX)).code == "not_owner"
    retried = asyncio.run(proposals.retry(card, wife(target), BOX))
    assert retried.done and retried.proposal.status == "approved" and not retried.proposal.interrupted
    assert sorted(t.title for t in store.todos("futari")) == ["牛乳 1", "牛乳 2"]
    again = asyncio.run(proposals.retry(card, wife(target), BOX))
    assert not again.done and len(store.todos("futari")) == 2  # at most once
    assert sorted(_approvals(audit, card)) == ["proposal.approved", "proposal.retried"]


def test_a_card_killed_after_its_write_is_done_and_recorded(target: str) -> None:
    proposals, store, audit, card = _setup(target)
    _killed_at(_APPROVER, target, card, when="after")
    done = proposals.get(card)
    assert done.status == "approved" and not done.interrupted  # committed with the write
    assert len(store.todos("futari")) == 2
    assert not asyncio.run(proposals.retry(card, wife(target), BOX)).done
    assert _approvals(audit, card) == ["proposal.approved"]
