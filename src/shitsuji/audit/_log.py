"""The audit log: every write, proposal, decision, memory change and sign-in, with who, when and where.

Rows are appended, never changed. Each names the household (when there is one), the
actor (a member's user id, ``extractor`` for facts taken from a conversation, ``cli`` for
the local command line), the channel and conversation, the action (``tool.ran``,
``proposal.made``, ``proposal.approved`` …, ``memory.remembered`` …, ``signin.ok`` …),
its subject's id, and — on every row — its owner and scope: the household's shared scope,
or a member's own (a ``remember`` call, a card for one, a sign-in). A member is shown the
rows ``privacy.Viewer`` lets them see, and each row's number within its household
(``hseq``): the global sequence would count other households' writes.

An event is written in the same transaction as the change it records (``record(event, tx)``,
or ``record(event)`` from inside the writer's own ``db.write()``: a savepoint there): the change and
its history commit together or not at all, so no event is ever dropped while its change stands.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import store as db
from ..privacy import HOUSEHOLD_ROOT, Viewer, household_of_scope, member_of_scope, shared_scope
from ._schema import AUDIT_SCHEMA

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


EVENTS = db.Table(
    "audit_events",
    (
        "seq", "hseq", "at", "household", "actor", "channel", "conversation", "action", "subject", "scope",
        "detail", "owner",
    ),
)  # fmt: skip


class AuditLog(db.Store):
    SCHEMA = AUDIT_SCHEMA

    def record(self, event: AuditEvent, tx: db.Tx | None = None) -> None:
        """Append one event (its time is now) in ``tx``, the transaction of the change it records
        (else in a transaction of its own, or a savepoint of this thread's open one). A failure
        raises: the change it records fails with it.

        A row of a household without a scope is the household's shared one; its owner is the
        scope's member (a private row), else whoever acted. Its ``hseq`` counts the household's
        own rows only.
        """
        household = event.household or (household_of_scope(event.scope) if event.scope else None)
        scope = event.scope or (shared_scope(household) if household else None)
        values = {
            "at": self.clock().isoformat(),
            "household": household,
            "actor": event.actor,
            "channel": event.channel,
            "conversation": event.conversation,
            "action": event.action,
            "subject": event.subject,
            "scope": scope,
            "detail": json.dumps(dict(event.detail), ensure_ascii=False, default=str),
            "owner": event.owner or (member_of_scope(scope) if scope else None) or event.actor,
        }
        if tx is not None:
            _insert(tx, household, values)
            return
        with self._conn.write() as own:
            _insert(own, household, values)

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
        sql = EVENTS.select + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._conn.execute(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit]).fetchall()
        return [_event(EVENTS.named(r)) for r in rows]


def _insert(tx: db.Tx, household: str | None, values: dict[str, Any]) -> None:
    """The row and, for a household's, its number among the household's own (one row per household,
    locked by the upsert until the transaction commits)."""
    hseq = None
    if household is not None:
        hseq = tx.execute(
            "INSERT INTO audit_household_seq (household, last) VALUES (?, 1) "
            "ON CONFLICT (household) DO UPDATE SET last = audit_household_seq.last + 1 "
            "RETURNING last",
            (household,),
        ).fetchone()[0]
    tx.execute(EVENTS.insert(skip=("seq",)), EVENTS.values({**values, "hseq": hseq}, skip=("seq",)))


def _event(row: dict[str, Any]) -> AuditEvent:
    """A row as the event a member reads: ``seq`` is its number within its household."""
    return AuditEvent(
        **{
            k: row[k] for k in ("household", "actor", "channel", "conversation", "action", "subject", "scope")
        },
        seq=row["hseq"],
        owner=row["owner"],
        at=datetime.fromisoformat(row["at"]),
        detail=json.loads(row["detail"]),
    )
