"""What the butler said first, as the web app and the CLI show it: a member's notifications (the same
visibility rule as everywhere — rows are addressed to one member, and only that member reads them)
and the scheduler's state (the month's pushes against the budget, rows by status)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..store import Database
from ._claims import Budget, month_of, pushes_used

__all__ = ["Notification", "Notifications"]

_SHOWN = "('pending', 'sending', 'sent', 'web', 'folded', 'digested', 'failed')"  # not 'dropped'


@dataclass(frozen=True, slots=True)
class Notification:
    id: int
    kind: str
    title: str
    text: str
    fire_at: str
    late: bool
    status: str
    read: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "text": self.text,
            "at": self.fire_at,
            "late": self.late,
            "status": self.status,
            "read": self.read,
        }


class Notifications:
    def __init__(self, db: Database) -> None:
        self.db = db

    def of_member(self, household: str, member: str, *, limit: int = 50) -> list[Notification]:
        rows = self.db.execute(
            "SELECT id, kind, title, body, fire_at, late, status, read_at FROM schedule_deliveries "
            f"WHERE household = ? AND member = ? AND status IN {_SHOWN} ORDER BY fire_at DESC, id DESC LIMIT ?",
            (household, member, limit),
        ).fetchall()
        return [
            Notification(r[0], r[1], r[2], json.loads(r[3])["text"], r[4], bool(r[5]), r[6], r[7] is not None)
            for r in rows
        ]

    def mark_read(self, household: str, member: str, now: datetime) -> int:
        with self.db.write() as tx:
            return tx.execute(
                "UPDATE schedule_deliveries SET read_at = ? WHERE household = ? AND member = ? AND read_at IS NULL",
                (now.isoformat(timespec="seconds"), household, member),
            ).rowcount

    def latest(self, household: str) -> int:
        """The household's newest row id (the live stream's fingerprint takes it in)."""
        row = self.db.execute(
            "SELECT MAX(id) FROM schedule_deliveries WHERE household = ?", (household,)
        ).fetchone()
        return int(row[0] or 0)

    def status(self, now: datetime, budget: Budget) -> dict[str, Any]:
        counts = dict(
            self.db.execute("SELECT status, COUNT(*) FROM schedule_deliveries GROUP BY status").fetchall()
        )
        return {
            "month": month_of(now),
            "pushes_used": pushes_used(self.db, now),
            "push_budget": budget.monthly or None,
            "fold_below": budget.fold_below,
            "deliveries": {k: int(v) for k, v in sorted(counts.items())},
        }
