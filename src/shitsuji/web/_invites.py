"""One-time links that let a person choose their own password: to join the household, or after forgetting it.

A member names who the link is for (a new member's user id, or the other member's when
they forgot their password); the link is shown once and only its SHA-256 is stored. It
works once and for ``INVITE_TTL``: redeeming is one conditional UPDATE, so two tabs
racing with the same link get one success. The household comes from the link, never
from the person using it. A newer link for the same person replaces older unused ones.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .. import store as db
from ._accounts import Clock, _digest
from ._schema import WEB_SCHEMA

INVITE_TTL = timedelta(hours=48)


@dataclass(frozen=True, slots=True)
class Invitation:
    household: str
    user: str
    created_by: str
    expires_at: datetime


class Invitations:
    def __init__(self, database: db.Database, *, clock: Clock = lambda: datetime.now(UTC)) -> None:
        database.ensure(WEB_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def create(
        self, household: str, user: str, *, by: str, ttl: timedelta = INVITE_TTL
    ) -> tuple[str, Invitation]:
        """A new link for ``user`` of ``household``: (token shown once, invitation)."""
        token = secrets.token_urlsafe(24)
        now = self.clock()
        invitation = Invitation(household, user, by, now + ttl)
        with self._conn.write() as conn:
            conn.execute(
                'DELETE FROM invitations WHERE household = ? AND "user" = ? AND used_at IS NULL',
                (household, user),
            )
            conn.execute(
                'INSERT INTO invitations (token_hash, household, "user", created_by, created_at, expires_at) '
                "VALUES (?, ?, ?, ?, ?, ?)",
                (_digest(token), household, user, by, now.isoformat(), invitation.expires_at.isoformat()),
            )
        return token, invitation

    def peek(self, token: str) -> Invitation | None:
        """The invitation while it can still be used (unused, not expired), else None."""
        if not token or len(token) > 200:
            return None
        row = self._conn.execute(
            'SELECT household, "user", created_by, expires_at FROM invitations '
            "WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
            (_digest(token), self.clock().isoformat()),
        ).fetchone()
        return Invitation(row[0], row[1], row[2], datetime.fromisoformat(row[3])) if row else None

    def redeem(self, token: str) -> Invitation | None:
        """Use the link up (once, atomically); None when it is unknown, used or expired."""
        found = self.peek(token)
        if found is None:
            return None
        with self._conn.write() as conn:
            claimed = conn.execute(
                "UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
                (self.clock().isoformat(), _digest(token), self.clock().isoformat()),
            ).rowcount
        return found if claimed else None
