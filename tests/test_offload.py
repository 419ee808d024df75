"""Blocking work off the loop: the shared worker threads, and the acknowledgement lane beside them."""

from __future__ import annotations

import asyncio
import threading

from shitsuji._offload import current_threads, off_loop, off_loop_ack


def test_an_acknowledgement_is_not_held_up_by_busy_shared_threads() -> None:
    """Every shared thread is blocked; LINE's webhook write (``off_loop_ack``) still runs at once."""
    release = threading.Event()
    started = threading.Semaphore(0)

    def hold() -> str:
        started.release()
        assert release.wait(60), "never released"
        return "held"

    async def scene() -> list[str]:
        holders = [asyncio.create_task(off_loop(hold)) for _ in range(current_threads())]
        for _ in holders:  # each shared thread is inside ``hold``
            assert await asyncio.to_thread(started.acquire, True, 60)
        queued = asyncio.create_task(off_loop(lambda: "queued"))
        acked = await asyncio.wait_for(off_loop_ack(lambda: "acked"), timeout=30)
        assert not queued.done()  # the shared threads are still all taken
        release.set()
        return [acked, await queued, *(await asyncio.gather(*holders))]

    try:
        answers = asyncio.run(scene())
    finally:
        release.set()
    assert answers == ["acked", "queued", *["held"] * current_threads()]
