"""Proposals: durable, owner-approved, run exactly once, expiring."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field

from shitsuji.agent import Proposals, Toolbox, ToolContext, tool
from shitsuji.errors import NotFoundError
from shitsuji.store import database, open_database

from .conftest import Clock

WIFE = ToolContext(
    deps=None,
    user="wife",
    scope="household/futari/user/wife",
    channel="app",
    household="futari",
    conversation="c1",
)
HUSBAND = ToolContext(
    deps=None, user="husband", scope="household/futari/user/husband", channel="app", household="futari"
)
runs: list[str] = []


@tool(effect="write", summary=lambda a: f"「{a['name']}」を買い物リストに追加")
async def add_shopping_item(ctx: ToolContext[None], name: Annotated[str, Field(min_length=1)]) -> str:
    """Add an item to the shopping list."""
    await asyncio.sleep(0.01)  # long enough for a concurrent approval to race
    runs.append(name)
    return f"added {name}"


@tool(effect="write")
def explode(ctx: ToolContext[None]) -> str:
    """Always fails."""
    raise RuntimeError("the shelf collapsed")


BOX = Toolbox([add_shopping_item, explode])


@pytest.fixture
def proposals(target: str, clock: Clock) -> Proposals:
    runs.clear()
    return Proposals(database(target), clock=clock, ttl=timedelta(hours=1))


def test_a_write_waits_as_a_durable_proposal(proposals: Proposals, target: str, clock: Clock) -> None:
    p = proposals.propose(add_shopping_item, {"name": " 牛乳 "}, WIFE)
    assert p.status == "pending" and p.owner == "wife" and p.input == {"name": "牛乳"}
    assert p.summary == "「牛乳」を買い物リストに追加" and p.conversation == "c1"
    assert p.expires_at == clock.now + timedelta(hours=1)
    reopened = Proposals(database(target), clock=clock)  # a restart loses nothing
    assert [x.id for x in reopened.list(owner="wife", status="pending")] == [p.id]
    assert runs == []


def test_approval_runs_the_tool_exactly_once(proposals: Proposals) -> None:
    p = proposals.propose(add_shopping_item, {"name": "卵"}, WIFE)
    first = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert first.done and first.proposal.status == "approved" and first.proposal.result == "added 卵"
    second = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert not second.done and "already approved by wife" in second.reason
    assert runs == ["卵"]


def test_concurrent_approvals_from_two_processes_run_it_once(
    proposals: Proposals, target: str, clock: Clock
) -> None:
    p = proposals.propose(add_shopping_item, {"name": "パン"}, WIFE)
    other = Proposals(database(target), clock=clock)

    async def both() -> list[bool]:
        results = await asyncio.gather(
            *(x.approve(p.id, WIFE, BOX) for x in (proposals, other, proposals, other))
        )
        return [r.done for r in results]

    assert sorted(asyncio.run(both())) == [False, False, False, True]
    assert runs == ["パン"]


def test_approvals_racing_in_threads_run_it_once_and_the_rest_say_why(
    proposals: Proposals, target: str, clock: Clock
) -> None:
    """Real concurrency (each thread its own store and connection): PostgreSQL's read committed
    writers overlap, so only the conditional pending → running UPDATE keeps it exactly once."""
    p = proposals.propose(add_shopping_item, {"name": "味噌"}, WIFE)
    start = threading.Barrier(8, timeout=60)  # a thread that fails breaks it: no hang

    def approve(_: int) -> str:
        mine = Proposals(database(target), clock=clock)
        start.wait()
        return asyncio.run(mine.approve(p.id, WIFE, BOX)).code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(approve, range(8)))
    assert codes.count("approved") == 1
    assert set(codes) <= {"approved", "running", "already_decided"}
    assert runs == ["味噌"] and proposals.get(p.id).status == "approved"


def test_only_the_owner_decides_unless_the_household_may(
    proposals: Proposals, target: str, clock: Clock
) -> None:
    p = proposals.propose(add_shopping_item, {"name": "納豆"}, WIFE)
    refused = asyncio.run(proposals.approve(p.id, HUSBAND, BOX))
    assert not refused.done and refused.reason == "only wife may decide on this proposal"
    assert not proposals.reject(p.id, HUSBAND).done
    shared = Proposals(database(target), clock=clock, household_may_approve=True)
    assert asyncio.run(shared.approve(p.id, HUSBAND, BOX)).done
    stranger = ToolContext(
        deps=None, user="tanaka", scope="household/tanaka/user/tanaka", channel="app", household="tanaka"
    )
    q = proposals.propose(add_shopping_item, {"name": "米"}, WIFE)
    assert not asyncio.run(shared.approve(q.id, stranger, BOX)).done
    assert runs == ["納豆"]


def test_an_expired_proposal_does_nothing_and_says_so(proposals: Proposals, clock: Clock) -> None:
    p = proposals.propose(add_shopping_item, {"name": "豆腐"}, WIFE)
    clock.advance(hours=2)
    late = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert not late.done and late.reason.startswith("expired at")
    assert runs == []


def test_reject_then_approve(proposals: Proposals) -> None:
    p = proposals.propose(add_shopping_item, {"name": "ビール"}, WIFE)
    assert proposals.reject(p.id, WIFE).done
    again = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert not again.done and "already rejected" in again.reason
    assert runs == []


def test_tampered_arguments_are_refused(proposals: Proposals, target: str) -> None:
    p = proposals.propose(add_shopping_item, {"name": "りんご"}, WIFE)
    with open_database(target).write() as tx:
        tx.execute("UPDATE proposals SET input = ? WHERE id = ?", ('{"name": "ワイン 12本"}', p.id))
    result = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert not result.done and result.proposal.status == "failed"
    assert "arguments changed" in (result.proposal.result or "")
    assert runs == []


def test_a_failing_tool_is_recorded_not_raised(proposals: Proposals) -> None:
    p = proposals.propose(explode, {}, WIFE)
    result = asyncio.run(proposals.approve(p.id, WIFE, BOX))
    assert not result.done and result.proposal.status == "failed"
    assert proposals.get(p.id).result == "RuntimeError: the shelf collapsed"


def test_unknown_proposal(proposals: Proposals) -> None:
    with pytest.raises(NotFoundError, match="no proposal"):
        proposals.get("p_nope")


@tool(effect="write")
async def slow_write(ctx: ToolContext[None], path: str) -> str:
    """Append a line to ``path`` after a long pause (long enough to kill the process mid-way)."""
    print("running", flush=True)
    await asyncio.sleep(60)
    with open(path, "a", encoding="utf-8") as out:
        out.write("written\n")
    return "written"


_APPROVER = """
import asyncio, sys
from shitsuji.agent import Proposals, Toolbox
from shitsuji.store import database
from tests.test_proposals import WIFE, slow_write
asyncio.run(Proposals(database(sys.argv[1])).approve(sys.argv[2], WIFE, Toolbox([slow_write])))
"""


def test_an_approval_killed_mid_run_is_interrupted_and_never_approved_again(
    proposals: Proposals, target: str, tmp_path: Path
) -> None:
    """kill -9 of the process carrying out an approved card: the card shows "interrupted" and no
    later approval or rejection runs it again (only its owner's ``retry`` does: test_crash_recovery)."""
    effect = tmp_path / "effect.txt"
    proposals = Proposals(database(target))  # the real clock, as in the approving process
    p = proposals.propose(slow_write, {"path": str(effect)}, WIFE)
    root = Path(__file__).resolve().parent.parent
    victim = subprocess.Popen(
        [sys.executable, "-c", _APPROVER, target, p.id],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert victim.stdout is not None and victim.stdout.readline() == "running\n", victim.communicate()
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=10)
    assert proposals.get(p.id).status == "running" and proposals.get(p.id).interrupted
    again = asyncio.run(proposals.approve(p.id, WIFE, Toolbox([slow_write])))
    assert not again.done and again.code == "interrupted" and not proposals.reject(p.id, WIFE).done
    assert not effect.exists()


@tool(effect="write", name="add_shopping_item")
async def add_short_item(ctx: ToolContext[None], name: Annotated[str, Field(max_length=1)]) -> str:
    """The same tool after an upgrade that allows one character only."""
    runs.append(name)
    return f"added {name}"


def test_a_card_that_no_longer_fits_its_tool_is_refused_whole(proposals: Proposals) -> None:
    p = proposals.propose(add_shopping_item, {"name": "牛乳"}, WIFE)
    decision = asyncio.run(proposals.approve(p.id, WIFE, Toolbox([add_short_item])))
    assert not decision.done and decision.code == "failed" and decision.proposal.status == "failed"
    assert "nothing was changed: the card no longer fits the tool" in decision.reason
    assert "at most 1 character" in decision.reason
    assert runs == []
