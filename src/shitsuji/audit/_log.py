"""The audit log: every write, proposal, decision, memory change and sign-in, with who, when and where.

Rows are appended, never changed. Each names the household (when there is one), the
actor (a member's user id, ``extractor`` for facts taken from a conversation, ``cli`` for
the local command line), the channel and conversation, the action (``tool.ran``,
``proposal.made``, ``proposal.approved`` …, ``memory.remembered`` …, ``signin.ok`` …),
its subject's id, and for memory events the memory's scope — so a member is shown their
household's events, and private memory events only when they are their own.

An event is written in the same transaction as the change it records (``record(event, tx)``,
or ``record(event)`` from inside the writer's own ``db.write()``: a savepoint there): the change and
its history commit together or not at all, so no event is ever dropped while its change stands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .. import store as db
from ._schema import AUDIT_SCHEMA

HOUSEHOLD_ROOT = "household"


def household_of_scope(scope: str) -> str | None:
    """The household a memory scope belongs to (``household/<name>/…``), if any."""
    parts = scope.split("/")
    return parts[1] if len(parts) >= 2 and parts[0] == HOUSEHOLD_ROOT else None


@dataclass(frozen=True, slots=True)
class AuditEvent:
    action: str
    actor: str
    household: str | None = None
    channel: str | None = None
    conversation: str | None = None
    subject: str | None = None
    scope: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    at: datetime | None = None
    seq: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "at": self.at.isoformat() if self.at else None,
            "household": self.household,
            "actor": self.actor,
            "channel": self.channel,
            "conversation": self.conversation,
            "action": self.action,
            "subject": self.subject,
            "scope": self.scope,
            "detail": dict(self.detail),
        }


EVENTS = db.Table(
    "audit_events",
    ("seq", "at", "household", "actor", "channel", "conversation", "action", "subject", "scope", "detail"),
)


class AuditLog:
    def __init__(
        self, database: db.Database, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        database.ensure(AUDIT_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    @property
    def database(self) -> db.Database:
        return self._conn

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def record(self, event: AuditEvent, tx: db.Tx | None = None) -> None:
        """Append one event (its time is now) in ``tx``, the transaction of the change it records
        (else in a transaction of its own, or a savepoint of this thread's open one). A failure
        raises: the change it records fails with it."""
        household = event.household or (household_of_scope(event.scope) if event.scope else None)
        values = {
            "at": self.clock().isoformat(),
            "household": household,
            "actor": event.actor,
            "channel": event.channel,
            "conversation": event.conversation,
            "action": event.action,
            "subject": event.subject,
            "scope": event.scope,
            "detail": json.dumps(dict(event.detail), ensure_ascii=False, default=str),
        }
        if tx is not None:
            tx.execute(EVENTS.insert(skip=("seq",)), EVENTS.values(values, skip=("seq",)))
            return
        with self._conn.write() as own:
            own.execute(EVENTS.insert(skip=("seq",)), EVENTS.values(values, skip=("seq",)))

    def events(
        self,
        *,
        household: str | None = None,
        viewer: str | None = None,
        private_scope: str | None = None,
        shared_scope: str | None = None,
        limit: int = 200,
    ) -> list[AuditEvent]:
        """Newest first. With ``viewer``: what that member may see — events without a memory scope,
        the shared scope's, and their own private scope's (``private_scope``)."""
        where, params = [], []
        if household is not None:
            where.append("household = ?")
            params.append(household)
        if viewer is not None:
            where.append("(scope IS NULL OR scope = ? OR scope = ?)")
            params += [shared_scope or "", private_scope or ""]
        sql = EVENTS.select + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._conn.execute(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit]).fetchall()
        return [_event(EVENTS.named(r)) for r in rows]


def _event(row: dict[str, Any]) -> AuditEvent:
    return AuditEvent(
        **{
            k: row[k]
            for k in ("seq", "household", "actor", "channel", "conversation", "action", "subject", "scope")
        },
        at=datetime.fromisoformat(row["at"]),
        detail=json.loads(row["detail"]),
    )
