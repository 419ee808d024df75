"""Durable turn claims: one turn at a time per conversation, across processes.

A web server, a LINE worker and a terminal may all answer in the same conversation; a
claim is a row (conversation, holder, expires_at) taken in one write transaction, so two
processes can never both hold it. The holder renews it while the turn runs; a claim left
by a crashed process simply expires after its lease, and the next turn may take it.
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
        """Take the conversation for one turn, or raise ``Busy`` while another holder's lease runs."""
        holder = secrets.token_hex(8)
        now = self.clock()
        with self._conn.write() as conn:
            taken = conn.execute(
                "INSERT INTO turn_claims (conversation, holder, claimed_at, expires_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (conversation) DO UPDATE SET holder = excluded.holder, "
                "claimed_at = excluded.claimed_at, expires_at = excluded.expires_at "
                "WHERE turn_claims.expires_at <= ?",
                (conversation, holder, now.isoformat(), (now + self.lease).isoformat(), now.isoformat()),
            ).rowcount
        if not taken:
            raise Busy("the butler is still answering your previous message: wait for it to finish")
        return Claim(conversation, holder)

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
            conn.execute(
                "DELETE FROM turn_claims WHERE conversation = ? AND holder = ?",
                (claim.conversation, claim.holder),
            )

    def held(self, conversation: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM turn_claims WHERE conversation = ? AND expires_at > ?",
            (conversation, self.clock().isoformat()),
        ).fetchone()
        return row is not None
