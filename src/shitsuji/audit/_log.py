"""The audit log: every write, proposal, decision, memory change and sign-in, with who, when and where.

Rows are appended, never changed. Each names the household (when there is one), the
actor (a member's user id, ``extractor`` for facts taken from a conversation, ``cli`` for
the local command line), the channel and conversation, the action (``tool.ran``,
``proposal.made``, ``proposal.approved`` …, ``memory.remembered`` …, ``signin.ok`` …),
its subject's id, and — on every row — its owner and scope: the household's shared scope,
or a member's own (a ``remember`` call, a card for one, a sign-in). A member is shown the
rows ``privacy.Viewer`` lets them see, and each row's number within its household
(``hseq``): the global sequence would count other households' writes.

Writing the log never stops the change it records: a failure to record is logged and
the change stands (the row of the change is the truth; this is its history).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import store as db
from ..errors import StoreError
from ..privacy import HOUSEHOLD_ROOT, Viewer, household_of_scope, member_of_scope, shared_scope
from ._schema import AUDIT_SCHEMA

log = logging.getLogger(__name__)
__all__ = ["HOUSEHOLD_ROOT", "AuditEvent", "AuditLog", "household_of_scope"]


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
    seq: int | None = None  # the row's number within its household (members see only these)
    owner: str | None = None  # whose record it is (default: the scope's member, else the actor)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "owner": self.owner,
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


_COLUMNS = "hseq, at, household, actor, channel, conversation, action, subject, scope, detail, owner"


class AuditLog:
    def __init__(
        self, path: str | Path, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.path = str(path)
        self._conn = db.open_database(self.path, AUDIT_SCHEMA)
        self.clock = clock

    def close(self) -> None:
        self._conn.close()

    def record(self, event: AuditEvent) -> None:
        """Append one event (its time is now); a failure is logged, never raised.

        A row of a household without a scope is the household's shared one; its owner is the
        scope's member (a private row), else whoever acted.
        """
        household = event.household or (household_of_scope(event.scope) if event.scope else None)
        scope = event.scope or (shared_scope(household) if household else None)
        owner = event.owner or (member_of_scope(scope) if scope else None) or event.actor
        try:
            with self._conn.write() as conn:
                hseq = None
                if household is not None:  # one row per household, locked by the upsert until commit
                    hseq = conn.execute(
                        "INSERT INTO audit_household_seq (household, last) VALUES (?, 1) "
                        "ON CONFLICT (household) DO UPDATE SET last = audit_household_seq.last + 1 "
                        "RETURNING last",
                        (household,),
                    ).fetchone()[0]
                conn.execute(
                    f"INSERT INTO audit_events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        hseq,
                        self.clock().isoformat(),
                        household,
                        event.actor,
                        event.channel,
                        event.conversation,
                        event.action,
                        event.subject,
                        scope,
                        json.dumps(dict(event.detail), ensure_ascii=False, default=str),
                        owner,
                    ),
                )
        except StoreError as exc:
            log.warning("could not record %s in the audit log: %s", event.action, exc)

    def events(
        self, *, household: str | None = None, viewer: Viewer | None = None, limit: int = 200
    ) -> list[AuditEvent]:
        """Newest first. With ``viewer``: only what that member may see (``privacy``'s rule)."""
        where: list[str] = []
        params: list[object] = []
        if household is not None:
            where.append("household = ?")
            params.append(household)
        if viewer is not None:
            rule, values = viewer.where()
            where.append(rule)
            params += values
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
                owner=r[10],
            )
            for r in rows
        ]
