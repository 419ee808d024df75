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


# a claim replaces only one whose lease ran out
_UNLESS_HELD = (
    "ON CONFLICT (conversation) DO UPDATE SET holder = excluded.holder, claimed_at = excluded.claimed_at, "
    "expires_at = excluded.expires_at, process = excluded.process WHERE turn_claims.expires_at <= ?"
)


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

    def claim_picked(self, pick: tuple[str, db.Params]) -> Claim | None:
        """Take the one conversation the query ``pick`` selects (its id), in one statement, before the
        conversation is read — so a turn reads what every turn before it saved. None when ``pick``
        finds none or its conversation is held (``claim`` tells those apart: ``Busy``, a dead holder)."""
        holder, statement = self.picking(pick)
        row = self._conn.write_one(*statement).fetchone()
        return Claim(str(row[0]), holder) if row is not None else None

    def picking(self, pick: tuple[str, db.Params]) -> tuple[str, tuple[str, db.Params]]:
        """The holder of a claim on the conversation ``pick`` selects, and the statement that takes it
        (``RETURNING conversation``: no row when there is none or it is held), for a caller to send with
        a read of its own (a turn's cards: ``Proposals.after``); ``claim_picked`` sends it alone."""
        holder = secrets.token_hex(8)
        query, params = pick
        now, values = self._values(holder)
        return holder, (
            f"INSERT INTO turn_claims (conversation, holder, claimed_at, expires_at, process) "
            f"SELECT picked.id, ?, ?, ?, ? FROM ({query}) AS picked WHERE true {_UNLESS_HELD} "
            "RETURNING conversation",
            (*values, *params, now),
        )

    def taking(self, conversation: str) -> tuple[Claim, tuple[str, db.Params]]:
        """A claim on a conversation being made, and the statement that takes it, for the caller to run
        with the conversation's own insert (``Conversations.start(also=…)``)."""
        holder = secrets.token_hex(8)
        _, values = self._values(holder)
        return Claim(conversation, holder), (
            "INSERT INTO turn_claims (conversation, holder, claimed_at, expires_at, process) "
            "VALUES (?, ?, ?, ?, ?)",
            (conversation, *values),
        )

    def _values(self, holder: str) -> tuple[str, tuple[str, str, str, str]]:
        """Now, and a claim's holder, claimed_at, expires_at and process from now."""
        now = self.clock()
        process = self._conn.holder()  # before the transaction: it may need a connection of its own
        return now.isoformat(), (holder, now.isoformat(), (now + self.lease).isoformat(), process)

    def _take(self, conversation: str, holder: str) -> bool:
        now, values = self._values(holder)
        taken = self._conn.write_one(  # one statement, one round trip on PostgreSQL
            "INSERT INTO turn_claims (conversation, holder, claimed_at, expires_at, process) "
            f"VALUES (?, ?, ?, ?, ?) {_UNLESS_HELD}",
            (conversation, *values, now),
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
