"""The one way async code calls blocking work: ``await off_loop(fn, *args)`` runs it in a worker thread.

The event loop serves every open page, stream and webhook of a process; it must never wait on
the database (a psycopg round trip, a SQLite lock), an embedding or a blocking client. Code on
the loop hands such work to ``off_loop`` at the boundary, a whole unit at a time: a function
that opens a transaction commits it before it returns, so a transaction stays on one thread
from BEGIN to COMMIT (never split across two hops, never held across an ``await``).

A cancelled caller does not abandon the thread: the call runs to its end (its transaction
commits or rolls back there) and only then is the cancellation delivered. The threads are
anyio's pool, the one FastAPI runs plain ``def`` routes in; its limit on a loop is ``THREADS``.

``THREADS`` is 2. A transaction belongs to one thread from BEGIN to COMMIT (``store.Database``),
and the in-process caches that worker threads share guard themselves (the SQLite memory store's
indexes, the turn-vector cache), so blocking work of several requests overlaps: a chat turn's
model call no longer queues behind another's database work. Measured with ``bench web --threads``
beside main (docs/benchmarks.md, issue 19): on two cores, 2 threads served the most chats/s and
kept health and loop lag where one thread had them; 4 served fewer chats than 2 and halved the
loop's health answers (more threads than cores contend with the loop for the GIL), 8 did worse.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio
import anyio.to_thread

P = ParamSpec("P")
T = TypeVar("T")


THREADS = 2
_threads = THREADS  # what this process uses: THREADS unless its edge chose otherwise (a bench)


def use_threads(n: int) -> None:
    """Let ``n`` worker threads run at once in this process from now on (the edge: ``bench web --threads``)."""
    global _threads
    if n < 1:
        raise ValueError(f"worker threads must be at least 1, got {n}")
    _threads = n


def current_threads() -> int:
    return _threads


def bound_threads() -> None:
    """Hold the running loop's worker threads (``off_loop`` and FastAPI's ``def`` routes) to the
    process's number (``THREADS``)."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    if limiter.total_tokens != _threads:
        limiter.total_tokens = _threads


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread; the loop serves others meanwhile."""
    bound_threads()
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


#: Each loop's lane for acknowledgements a remote service times (LINE's webhook): one thread of
#: its own, so an acknowledgement's short write never queues behind the chats' and the LINE
#: worker's trips for the ``THREADS`` shared ones. Measured beside 2dbb649 on a quiet machine
#: (docs/benchmarks.md, issue 19): with every LINE statement off the loop, the webhook's ack p99
#: was 2.2x 2dbb649's when it waited for the shared threads.
_ACK_LANES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)


async def off_loop_ack(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``off_loop`` on the loop's acknowledgement lane (one thread, beside the shared ones)."""
    loop = asyncio.get_running_loop()
    lane = _ACK_LANES.get(loop)
    if lane is None:
        lane = _ACK_LANES[loop] = anyio.CapacityLimiter(1)
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs), limiter=lane)
