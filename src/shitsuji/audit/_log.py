"""The audit log: every write, proposal, decision, memory change and sign-in, with who, when and where.

Rows are appended, never changed. Each names the household (when there is one), the
actor (a member's user id, ``extractor`` for facts taken from a conversation, ``cli`` for
the local command line), the channel and conversation, the action (``tool.ran``,
``proposal.made``, ``proposal.approved`` …, ``memory.remembered`` …, ``signin.ok`` …),
its subject's id, and for memory events the memory's scope — so a member is shown their
household's events, and private memory events only when they are their own.

Writing the log never stops the change it records: a failure to record is logged and
the change stands (the row of the change is the truth; this is its history).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .. import store as db
from ..errors import StoreError
from ._schema import AUDIT_SCHEMA

log = logging.getLogger(__name__)
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


_COLUMNS = "seq, at, household, actor, channel, conversation, action, subject, scope, detail"


class AuditLog:
    def __init__(
        self, database: db.Database, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        database.ensure(AUDIT_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def record(self, event: AuditEvent) -> None:
        """Append one event (its time is now); a failure is logged, never raised."""
        household = event.household or (household_of_scope(event.scope) if event.scope else None)
        try:
            with self._conn.write() as conn:
                conn.execute(
                    f"INSERT INTO audit_events ({_COLUMNS.removeprefix('seq, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        self.clock().isoformat(),
                        household,
                        event.actor,
                        event.channel,
                        event.conversation,
                        event.action,
                        event.subject,
                        event.scope,
                        json.dumps(dict(event.detail), ensure_ascii=False, default=str),
                    ),
                )
        except StoreError as exc:
            log.warning("could not record %s in the audit log: %s", event.action, exc)

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
        sql = f"SELECT {_COLUMNS} FROM audit_events" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._conn.execute(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit]).fetchall()
        return [
            AuditEvent(
                seq=r[0],
                at=datetime.fromisoformat(r[1]),
                household=r[2],
                actor=r[3],
                channel=r[4],
                conversation=r[5],
                action=r[6],
                subject=r[7],
                scope=r[8],
                detail=json.loads(r[9]),
            )
            for r in rows
        ]
