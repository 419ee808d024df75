"""What a store sees of its database: the ``Database``, ``Tx`` and ``Rows`` protocols.

They live below both engines and the migrations so that nothing in the store package imports
in a circle (``_migrations`` needs the protocols, ``_database`` runs the migrations).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]
Params = Sequence[Any]


class Rows(Protocol):
    """What a statement gives back: its rows (tuples) and how many rows it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Tx(Protocol):
    """A write transaction in progress."""

    def execute(self, sql: str, params: Params = ()) -> Rows: ...

    def executemany(self, sql: str, rows: Sequence[Params]) -> None: ...


class Database(Protocol):
    """An open database: reads, write transactions, its engine and a printable name.

    ``write()`` opened again by the thread whose transaction is open is a savepoint inside it (an
    audit row written by a store inside another store's write commits with that write); a read by
    that thread sees its own transaction's rows, and no other thread ever does.
    """

    dialect: Dialect
    where: str  # the path, or the URL without its password: for messages
    target: str  # what it was opened with: the path or the whole URL (may hold a password: never print it)

    def execute(self, sql: str, params: Params = ()) -> Rows: ...

    def write(self) -> AbstractContextManager[Tx]: ...

    def write_one(self, sql: str, params: Params = ()) -> Rows:
        """One statement that is a write transaction of its own (rows read in full): on PostgreSQL
        one round trip, without BEGIN and COMMIT; inside this thread's ``write()``, part of it."""
        ...

    def one_connection(self) -> AbstractContextManager[None]:
        """This thread's statements in the block on one connection (PostgreSQL: one pooled connection
        taken once for a worker thread's trip, not per statement; SQLite: its one connection already)."""
        ...

    def ahead(self, sql: str, params: Params = ()) -> None:
        """A read this thread's ``one_connection`` block asks for later (``execute`` with the same text and
        parameters): on PostgreSQL it is sent in the round trip of the block's next read and that later
        ``execute`` returns its rows without a trip of its own; elsewhere (SQLite, outside a block, a
        replica in use) nothing happens and the read runs when asked."""
        ...

    def ensure(self, *schemas: Any) -> None: ...

    def holder(self) -> str: ...

    def holder_alive(self, holder: str) -> bool: ...

    def sibling(self, suffix: str) -> str: ...

    def close(self) -> None: ...


class Result:
    """Rows read in full (the connection is free for the next statement)."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return self._rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)
