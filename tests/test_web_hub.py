"""The live-update hub: announcing a change never waits on a listener, whatever the listeners do.

Pages close their ``/api/events`` streams at any moment, also while a change is being
announced; a stream's wait is then cancelled. The old hub (an ``asyncio.Condition`` under
``wait_for``) could orphan its lock there, and every later announcement hung for the rest of
the process. These tests cancel listeners at every point around announcements, many times over,
and require every later announcement to return at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

import anyio
import pytest

from shitsuji.web._hub import Hub

HOME = "futari"
TRIALS = 200
AT_ONCE_S = 5.0  # generous: an announcement that hangs never returns at all


def _run_or_fail(work: Coroutine[Any, Any, None], within_s: float) -> None:
    """Run ``work`` on a loop of its own in a daemon thread: a jammed hub hangs the loop for good (even
    its shutdown), so the test fails on the deadline instead of hanging the suite."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            asyncio.run(work)
            outcome.append(None)
        except BaseException as exc:  # handed to the test below
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within_s)
    assert outcome, f"the announcements hung (no answer within {within_s:g} s)"
    if outcome[0] is not None:
        raise outcome[0]


async def _announce(hub: Hub, household: str | None = HOME) -> None:
    await asyncio.wait_for(hub.bump(household), AT_ONCE_S)


async def _one_trial(hub: Hub, listeners: int, yields_before_cancel: int, timeout: float) -> None:
    """Listeners wait; a change is announced; the listeners' clients go away ``yields_before_cancel``
    loop turns later (their streams' task group is cancelled, as Starlette does when a client
    disconnects: anyio re-delivers the cancellation every turn until the task ends); then a later
    announcement must still return at once and wake a new listener."""
    seen = hub.versions.get(HOME, 0)
    async with anyio.create_task_group() as streams:
        for _ in range(listeners):
            streams.start_soon(hub.wait, HOME, seen, timeout)
        for _ in range(2):
            await asyncio.sleep(0)  # every listener is waiting now
        await _announce(hub)
        for _ in range(yields_before_cancel):
            await asyncio.sleep(0)
        streams.cancel_scope.cancel()

    later = hub.versions[HOME]
    woken = asyncio.create_task(hub.wait(HOME, later, timeout=AT_ONCE_S * 4))
    await asyncio.sleep(0)
    await _announce(hub)
    assert await asyncio.wait_for(woken, AT_ONCE_S) == later + 1


@pytest.mark.parametrize("timeout", [30.0, 0.0005])
def test_cancelling_listeners_during_announcements_never_jams_later_ones(timeout: float) -> None:
    """Fails on the Condition-based hub (the 'Lock is not acquired' orphan): a later announcement hangs."""

    async def main() -> None:
        hub = Hub()
        for trial in range(TRIALS):
            await _one_trial(hub, listeners=4, yields_before_cancel=trial % 4, timeout=timeout)

    _run_or_fail(main(), within_s=60)


def test_an_announcement_wakes_every_listener_of_its_household_only() -> None:
    async def main() -> None:
        hub = Hub()
        ours = [asyncio.create_task(hub.wait(HOME, 0, timeout=30)) for _ in range(3)]
        theirs = asyncio.create_task(hub.wait("tonari", 0, timeout=0.2))
        await asyncio.sleep(0)
        await _announce(hub)
        assert await asyncio.wait_for(asyncio.gather(*ours), AT_ONCE_S) == [1, 1, 1]
        assert await theirs == 0  # timed out, unchanged
        everyone = asyncio.create_task(hub.wait("tonari", 0, timeout=30))
        await asyncio.sleep(0)
        await _announce(hub, None)  # every household
        assert await asyncio.wait_for(everyone, AT_ONCE_S) == 1

    asyncio.run(main())


def test_a_change_announced_before_the_wait_is_seen_at_once() -> None:
    async def main() -> None:
        hub = Hub()
        await _announce(hub)
        assert await asyncio.wait_for(hub.wait(HOME, 0, timeout=30), AT_ONCE_S) == 1
        assert await hub.wait(HOME, 1, timeout=0.01) == 1  # nothing new: the timeout answers

    asyncio.run(main())


def test_cancelled_and_timed_out_listeners_leave_nothing_behind() -> None:
    async def main() -> None:
        hub = Hub()
        gone = [asyncio.create_task(hub.wait(HOME, 0, timeout=30)) for _ in range(5)]
        await asyncio.sleep(0)
        for task in gone:
            task.cancel()
        await asyncio.gather(*gone, return_exceptions=True)
        await hub.wait(HOME, 0, timeout=0.01)
        assert not hub._waiting  # no future kept for a listener that left

    asyncio.run(main())
