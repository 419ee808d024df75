"""Work that commits with the next write: a proposal's "approved" rides in its tool's own transaction.

``Proposals`` runs an approved card's tool inside ``with_next_write(db, work)``: the first write
transaction the tool opens on ``db`` — in this context, also from a worker thread it hands work
to (``asyncio.to_thread`` copies the context) — runs ``work(tx)`` just before its ``COMMIT``. So the
household row and the card's new status (and its audit row) are one transaction: after a crash the
card is either done and recorded, or still running with nothing written, never half done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ._api import Tx


@dataclass(slots=True)
class Attached:
    db: Any  # the Database whose next write carries ``work``
    work: Callable[[Tx], None]
    committed: bool = False  # set once a transaction carrying ``work`` committed


_NEXT: ContextVar[Attached | None] = ContextVar("shitsuji_next_write", default=None)


@contextmanager
def with_next_write(db: Any, work: Callable[[Tx], None]) -> Iterator[Attached]:
    """Run ``work(tx)`` in the first write transaction on ``db`` opened in this context."""
    attached = Attached(db, work)
    token = _NEXT.set(attached)
    try:
        yield attached
    finally:
        _NEXT.reset(token)


def before_commit(db: Any, tx: Tx) -> Attached | None:
    """Called by a database just before it commits an outermost transaction: the attached work, if
    this context has some for ``db`` that has not committed yet (the caller marks it committed)."""
    attached = _NEXT.get()
    if attached is None or attached.db is not db or attached.committed:
        return None
    attached.work(tx)
    return attached


def attached_to(db: Any) -> bool:
    """Whether this context has work waiting for ``db``'s next write (a write must then carry it)."""
    attached = _NEXT.get()
    return attached is not None and attached.db is db and not attached.committed
