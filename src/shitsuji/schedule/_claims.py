"""Claiming deliveries to push, and recording how each push ended — with the month's push budget.

A claim takes due rows in one transaction — ``FOR UPDATE SKIP LOCKED`` on PostgreSQL (workers
take different rows), ``BEGIN IMMEDIATE`` on SQLite (workers take turns) — and leases them
(``LEASE``): a worker killed mid-send leaves rows that another takes again once the lease runs
out, and pushes them with the same ``X-Line-Retry-Key``, which LINE accepts once (a 409 for the
repeat means it went out: the row is then marked sent).

The budget is the LINE plan's pushes a month (the free plan: 200; 0 means no limit), counted per
calendar month in Japan time as LINE counts it. A push is counted when claimed (so two workers
cannot both spend the last one) and given back if LINE refuses it. Once no more than
``fold_below`` pushes are left, reminders are no longer pushed: they are folded — kept in the web
app's list and carried by the member's next digest — so the budget goes to digests; a digest
that finds the budget spent stays in the web app.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from ..store import Database, Tx
from ._plan import DIGEST_CUTOFF, GRACE
from ._words import late_note

__all__ = ["LEASE", "Budget", "Claimed", "claim", "month_of", "pushes_used", "settle"]

LEASE = timedelta(minutes=2)
_LINE_MONTH = ZoneInfo("Asia/Tokyo")


@dataclass(frozen=True, slots=True)
class Budget:
    monthly: int = 200  # 0: no limit
    fold_below: int = 50  # reminders fold into the digest once this few pushes are left

    def allows(self, kind: str, used: int) -> bool:
        if self.monthly <= 0:
            return True
        left = self.monthly - used
        return left > 0 if kind == "digest" else left > self.fold_below


@dataclass(frozen=True, slots=True)
class Claimed:
    id: int
    dkey: str
    line_user: str
    text: str


def month_of(now: datetime) -> str:
    return now.astimezone(_LINE_MONTH).strftime("%Y-%m")


def pushes_used(db: Database, now: datetime) -> int:
    row = db.execute("SELECT used FROM schedule_pushes WHERE month = ?", (month_of(now),)).fetchone()
    return int(row[0]) if row else 0


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def claim(db: Database, now: datetime, budget: Budget, limit: int) -> list[Claimed]:
    """Lease up to ``limit`` due rows to push; rows that no longer should be pushed are settled here."""
    lock = " FOR UPDATE SKIP LOCKED" if db.dialect == "postgresql" else ""
    stamp, month = _text(now), month_of(now)
    columns = "id, dkey, kind, line_user, body, due_at, occurs_at, late, counted"
    with db.write() as tx:
        rows = tx.execute(
            f"SELECT {columns} FROM schedule_deliveries WHERE status = 'pending' AND due_at <= ? "
            f"ORDER BY due_at, id LIMIT ?{lock}",
            (stamp, limit),
        ).fetchall()
        if len(rows) < limit:  # a worker died holding these
            rows += tx.execute(
                f"SELECT {columns} FROM schedule_deliveries WHERE status = 'sending' AND lease_until <= ? "
                f"ORDER BY lease_until, id LIMIT ?{lock}",
                (stamp, limit - len(rows)),
            ).fetchall()
        if not rows:
            return []
        tx.execute(
            "INSERT INTO schedule_pushes (month, used) VALUES (?, 0) ON CONFLICT (month) DO NOTHING", (month,)
        )
        row_lock = " FOR UPDATE" if lock else ""  # the month's count: workers take turns on it
        used = int(
            tx.execute(f"SELECT used FROM schedule_pushes WHERE month = ?{row_lock}", (month,)).fetchone()[0]
        )
        out: list[Claimed] = []
        leases: list[tuple[str, int, int]] = []
        settled: list[tuple[str, str | None, int]] = []
        counted, lease = 0, _text(now + LEASE)
        for id_, dkey, kind, line_user, body, due_at, occurs_at, late, already in rows:
            overdue = now - datetime.fromisoformat(due_at)
            began = datetime.fromisoformat(occurs_at) <= now
            if overdue > (DIGEST_CUTOFF if kind == "digest" else GRACE) and (kind == "digest" or began):
                settled.append(("dropped", None, id_))  # too late to help (see the planner's rules)
                continue
            if not already and not budget.allows(kind, used + counted):
                status = "folded" if kind == "reminder" else "web"
                settled.append((status, "the month's LINE pushes are used up", id_))
                continue
            counted += 0 if already else 1
            late = int(bool(late) or overdue > GRACE)
            data = json.loads(body)
            text = data["text"] + (f"\n{late_note(data['fire_local'], data['lang'])}" if late else "")
            out.append(Claimed(id_, dkey, line_user, text))
            leases.append((lease, late, id_))
        tx.executemany("UPDATE schedule_deliveries SET status = ?, last_error = ? WHERE id = ?", settled)
        tx.executemany(
            "UPDATE schedule_deliveries SET status = 'sending', lease_until = ?, attempts = attempts + 1, "
            "counted = 1, late = ? WHERE id = ?",
            leases,
        )
        if counted:
            tx.execute("UPDATE schedule_pushes SET used = used + ? WHERE month = ?", (counted, month))
    return out


def settle(
    db: Database,
    now: datetime,
    *,
    sent: Sequence[int] = (),
    retry: Sequence[tuple[int, timedelta, str]] = (),
    failed: Sequence[tuple[int, str]] = (),
) -> None:
    """Record how pushes ended: ``sent`` rows are done; ``retry`` rows go back with a delay; ``failed``
    rows are given up (LINE refused them) and their push is given back to the budget."""
    stamp = _text(now)
    with db.write() as tx:
        if sent:
            tx.executemany(
                "UPDATE schedule_deliveries SET status = 'sent', sent_at = ?, lease_until = NULL "
                "WHERE id = ? AND status = 'sending'",
                [(stamp, i) for i in sent],
            )
        if retry:
            tx.executemany(
                "UPDATE schedule_deliveries SET status = 'pending', due_at = ?, lease_until = NULL, last_error = ? "
                "WHERE id = ? AND status = 'sending'",
                [(_text(now + delay), error, i) for i, delay, error in retry],
            )
        if failed:
            _give_back(tx, now, len(failed))
            tx.executemany(
                "UPDATE schedule_deliveries SET status = 'failed', counted = 0, lease_until = NULL, last_error = ? "
                "WHERE id = ? AND status = 'sending'",
                [(error, i) for i, error in failed],
            )


def _give_back(tx: Tx, now: datetime, n: int) -> None:
    tx.execute(
        "UPDATE schedule_pushes SET used = used - ? WHERE month = ? AND used >= ?", (n, month_of(now), n)
    )
