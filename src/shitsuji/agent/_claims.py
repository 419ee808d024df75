"""Durable turn claims: one turn at a time per conversation, across processes.

A web server, a LINE worker and a terminal may all answer in the same conversation; a
claim is a row (conversation, holder, expires_at) taken in one write transaction, so two
processes can never both hold it. The holder renews it while the turn runs. A claim also names
its process (``Database.holder()``): one left by a process that is gone (``kill -9``, a crash) is
released as soon as anyone notices — the next turn in that conversation, or ``release_dead`` when
a service starts — rather than blocking the conversation for the rest of its lease.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .. import store as db
from ..errors import ShitsujiError
from ._schema import AGENT_SCHEMA

DEFAULT_LEASE = timedelta(seconds=90)


class Busy(ShitsujiError):
    """The conversation is still answering a previous message (here or in another process)."""


@dataclass(frozen=True, slots=True)
class Claim:
    conversation: str
    holder: str


class TurnClaims:
    def __init__(
        self,
        database: db.Database,
        *,
        lease: timedelta = DEFAULT_LEASE,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        database.ensure(AGENT_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.lease = lease
        self.clock = clock

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def claim(self, conversation: str) -> Claim:
        """Take the conversation for one turn, or raise ``Busy`` while another live holder's lease runs."""
        holder = secrets.token_hex(8)
        if not self._take(conversation, holder) and not (
            self._release_if_dead(conversation) and self._take(conversation, holder)
        ):
            raise Busy("the butler is still answering your previous message: wait for it to finish")
        return Claim(conversation, holder)

    def _take(self, conversation: str, holder: str) -> bool:
        now = self.clock()
        process = self._conn.holder()  # before the transaction: it may need a connection of its own
        taken = self._conn.write_one(  # one statement, one round trip on PostgreSQL
            "INSERT INTO turn_claims (conversation, holder, claimed_at, expires_at, process) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (conversation) DO UPDATE SET holder = excluded.holder, "
            "claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, process = excluded.process "
            "WHERE turn_claims.expires_at <= ?",
            (
                conversation,
                holder,
                now.isoformat(),
                (now + self.lease).isoformat(),
                process,
                now.isoformat(),
            ),
        ).rowcount
        return bool(taken)

    def _release_if_dead(self, conversation: str) -> bool:
        row = self._conn.execute(
            "SELECT holder, process FROM turn_claims WHERE conversation = ?", (conversation,)
        ).fetchone()
        if row is None:
            return True
        holder, process = row
        if process is None or self._conn.holder_alive(process):
            return False
        with self._conn.write() as conn:  # only that dead holder's claim: a new one may have come
            conn.execute(
                "DELETE FROM turn_claims WHERE conversation = ? AND holder = ?", (conversation, holder)
            )
        return True

    def release_dead(self) -> int:
        """Release every claim whose process is gone (a service starting); how many were released."""
        rows = self._conn.execute("SELECT conversation, holder, process FROM turn_claims").fetchall()
        dead = [(c, h) for c, h, p in rows if p is not None and not self._conn.holder_alive(p)]
        if dead:
            with self._conn.write() as conn:
                conn.executemany("DELETE FROM turn_claims WHERE conversation = ? AND holder = ?", dead)
        return len(dead)

    def renew(self, claim: Claim) -> bool:
        """Extend the lease; False if the claim was lost (it expired and someone else took it)."""
        expires = (self.clock() + self.lease).isoformat()
        with self._conn.write() as conn:
            changed = conn.execute(
                "UPDATE turn_claims SET expires_at = ? WHERE conversation = ? AND holder = ?",
                (expires, claim.conversation, claim.holder),
            ).rowcount
        return bool(changed)

    def release(self, claim: Claim) -> None:
        with self._conn.write() as conn:
            conn.execute(*self.releasing(claim))

    @staticmethod
    def releasing(claim: Claim) -> tuple[str, tuple[str, str]]:
        """The statement that lets ``claim`` go, for a caller to run in its own transaction (the saved answer)."""
        return "DELETE FROM turn_claims WHERE conversation = ? AND holder = ?", (
            claim.conversation,
            claim.holder,
        )

    def held(self, conversation: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM turn_claims WHERE conversation = ? AND expires_at > ?",
            (conversation, self.clock().isoformat()),
        ).fetchone()
        return row is not None
