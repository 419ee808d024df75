"""Waking other processes on PostgreSQL: NOTIFY in a writer's transaction, LISTEN in a thread.

A store that others wait on sends ``notify(tx, channel, payload)`` inside its write (PostgreSQL
delivers it on commit, never for a rolled-back write); a process that waits runs a ``Listener``:
one connection of its own, outside the pool, that hands each payload to a callback. Over
SQLite both are no-ops and waiters poll.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ._database import Database, Tx, is_postgres

log = logging.getLogger(__name__)

RECONNECT_S = 1.0


def notify(db: Database, tx: Tx, channel: str, payload: str = "") -> None:
    """Tell ``channel``'s listeners, once ``tx`` commits (PostgreSQL; nothing on SQLite)."""
    if db.dialect == "postgresql":
        tx.execute("SELECT pg_notify(?, ?)", (channel, payload))


class Listener(threading.Thread):
    """LISTEN on ``channel`` and call ``heard(payload)`` for each notification; ``heard(None)``
    whenever the connection is (re)opened, since anything may have been said while nobody listened."""

    def __init__(self, url: str, channel: str, heard: Callable[[str | None], None]) -> None:
        super().__init__(name=f"shitsuji-listen-{channel}", daemon=True)
        self.url = url
        self.channel = channel
        self.heard = heard
        self.ready = threading.Event()
        self._stopping = threading.Event()

    def run(self) -> None:
        import psycopg
        from psycopg import sql

        while not self._stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                    self.heard(None)
                    self.ready.set()
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self.heard(note.payload)
            except psycopg.Error as exc:
                log.warning(
                    "listening on %s failed (%s); trying again in %.0f s", self.channel, exc, RECONNECT_S
                )
                self._stopping.wait(RECONNECT_S)

    def stop(self) -> None:
        self._stopping.set()
        self.join(5)


def listener(target: str, channel: str, heard: Callable[[str | None], None]) -> Listener | None:
    """A started ``Listener`` when ``target`` is a PostgreSQL URL, else None (SQLite: poll instead)."""
    if not is_postgres(target):
        return None
    found = Listener(target, channel, heard)
    found.start()
    return found
