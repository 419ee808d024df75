"""The one way async code calls blocking work: ``await off_loop(fn, *args)`` runs it in a worker thread.

The event loop serves every open page, stream and webhook of a process; it must never wait on
the database (a psycopg round trip, a SQLite lock), an embedding or a blocking client. Code on
the loop hands such work to ``off_loop`` at the boundary, a whole unit at a time: a function
that opens a transaction commits it before it returns, so a transaction stays on one thread
from BEGIN to COMMIT (never split across two hops, never held across an ``await``).

A cancelled caller does not abandon the thread: the call runs to its end (its transaction
commits or rolls back there) and only then is the cancellation delivered. The threads are
anyio's pool, the one FastAPI runs plain ``def`` routes in (40 at most by default).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread; the loop serves others meanwhile."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
