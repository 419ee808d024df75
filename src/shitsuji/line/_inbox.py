"""The webhook's durable inbox: every LINE event stored once, then answered by a worker.

LINE wants its webhook answered at once and redelivers what it thinks was lost, so the
webhook only stores each event — ``webhookEventId`` is the primary key, so a redelivery
or a duplicate post stores nothing new — and a worker claims due events later. Claiming
is one conditional UPDATE in a write transaction (two workers never take the same event; on
PostgreSQL with ``FOR UPDATE SKIP LOCKED``, so any number of workers claim without waiting),
the claim is a lease (a worker that died leaves its event to be taken again when the
lease runs out), and one sender's events are taken one at a time, in order. Finished
events are kept a week (``purge``), long enough to recognise any redelivery. A failure is
retried with backoff; the answer is stored before it is sent, so a retry after a crash
sends the same answer (with the same push retry key) instead of asking the model again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from .. import store as db
from ..store._listen import Listener, listener, notify
from ._schema import LINE_INBOX_SCHEMA

__all__ = ["KEEP", "LEASE", "MAX_ATTEMPTS", "Inbox", "Pending", "sender_of"]

LEASE = timedelta(minutes=3)
MAX_ATTEMPTS = 8
MAX_BACKOFF = timedelta(minutes=5)
EVENTS_CHANNEL = "shitsuji_line_events"  # PostgreSQL: NOTIFY'd when new events are stored
KEEP = timedelta(days=7)  # finished events are kept this long, so a late redelivery is still known
Status = Literal["pending", "running", "done", "failed"]


def sender_of(event: dict[str, Any]) -> str:
    """Whose events must be answered in order: the speaking user, else the chat."""
    source = event.get("source") or {}
    return str(source.get("userId") or source.get("groupId") or source.get("roomId") or "-")


@dataclass(frozen=True, slots=True)
class Pending:
    """A claimed event: its raw JSON, which attempt this is, and the answer stored by an earlier one."""

    event_id: str
    event: dict[str, Any]
    attempts: int
    answer: list[dict[str, Any]] | None
    sent: int = 0  # how many batches of the answer went out already


class Inbox(db.Store):
    SCHEMA = LINE_INBOX_SCHEMA

    def accept(self, events: Iterable[dict[str, Any]]) -> int:
        """Store the events not seen before (by ``webhookEventId``); how many were new."""
        now = self.clock().isoformat()
        rows = [
            (str(e["webhookEventId"]), sender_of(e), json.dumps(e, ensure_ascii=False), now, now, now)
            for e in events
        ]
        if not rows:
            return 0
        insert = (
            "INSERT INTO line_events (event_id, sender, payload, status, next_attempt_at, received_at, "
            "updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (event_id) DO NOTHING"
        )
        with self._conn.write() as conn:
            new = sum(conn.execute(insert, row).rowcount for row in rows)
            if new:
                notify(self._conn, conn, EVENTS_CHANNEL)
        return new

    def listen(self, heard: Callable[[], None]) -> Listener | None:
        """Call ``heard`` (from another thread) as soon as any process stores new events (PostgreSQL);
        None over SQLite, where workers look every few moments and the webhook wakes its own."""
        return listener(self.path, EVENTS_CHANNEL, lambda _: heard())

    def claim(self, limit: int = 1) -> list[Pending]:
        """Take up to ``limit`` due events: each sender's oldest open one, unless it is still being answered.

        Only the head of each sender's queue is looked at (a partial index holds the open events),
        so a claim stays cheap however long the backlog: it runs inside the write lock the webhook
        needs too.
        """
        if limit <= 0:
            return []
        now = self.clock()
        with self._conn.write() as conn:
            rows = conn.execute(
                self._claim_sql, ((now + LEASE).isoformat(), now.isoformat(), now.isoformat(), limit)
            ).fetchall()
        return [
            Pending(r[1], json.loads(r[2]), int(r[3]), json.loads(r[4]) if r[4] else None, int(r[5]))
            for r in sorted(rows)
        ]

    @property
    def _claim_sql(self) -> str:
        """SQLite serializes writers, so the heads it reads stay true until it commits. PostgreSQL's
        read committed claimers overlap: each locks the heads it takes (``FOR UPDATE``), passes over
        the heads another claimer holds (``SKIP LOCKED``, so workers never wait on each other), and
        re-reads a head changed since its snapshot (a head just claimed is no longer due)."""
        lock = " FOR UPDATE SKIP LOCKED" if self._conn.dialect == "postgresql" else ""
        return (
            "UPDATE line_events SET status = 'running', attempts = attempts + 1, next_attempt_at = ?, "
            "updated_at = ? WHERE rowid IN (SELECT e.rowid FROM line_events e WHERE e.rowid IN "
            "(SELECT min(rowid) FROM line_events WHERE status IN ('pending', 'running') GROUP BY sender) "
            f"AND e.next_attempt_at <= ? ORDER BY e.rowid LIMIT ?{lock}) "
            "RETURNING rowid, event_id, payload, attempts, answer, sent"
        )

    def purge(self, older_than: timedelta = KEEP) -> int:
        """Forget answered events (and given-up ones) older than ``older_than``; LINE redelivers within hours."""
        before = (self.clock() - older_than).isoformat()
        with self._conn.write() as conn:
            return conn.execute(
                "DELETE FROM line_events WHERE status IN ('done', 'failed') AND updated_at < ?", (before,)
            ).rowcount

    def keep_answer(self, event_id: str, messages: list[dict[str, Any]]) -> None:
        """Store what will be sent, before sending it: a retry resends it instead of asking again."""
        self._update(event_id, "answer = ?", json.dumps(messages, ensure_ascii=False))

    def sent(self, event_id: str, batches: int) -> None:
        """Record that the first ``batches`` batches of the answer were delivered."""
        self._update(event_id, "sent = ?", batches)

    def done(self, event_id: str) -> None:
        self._update(event_id, "status = 'done', last_error = NULL")

    def retry(self, event_id: str, attempts: int, error: str, *, after: timedelta | None = None) -> Status:
        """Back off and try again later, or give up after ``MAX_ATTEMPTS``; the event's status now."""
        if attempts >= MAX_ATTEMPTS:
            self._update(event_id, "status = 'failed', last_error = ?", error)
            return "failed"
        wait = after if after is not None else min(timedelta(seconds=2**attempts), MAX_BACKOFF)
        due = (self.clock() + wait).isoformat()
        self._update(event_id, "status = 'pending', next_attempt_at = ?, last_error = ?", due, error)
        return "pending"

    def fail(self, event_id: str, error: str) -> None:
        self._update(event_id, "status = 'failed', last_error = ?", error)

    def status(self, event_id: str) -> tuple[Status, int, str | None] | None:
        row = self._conn.execute(
            "SELECT status, attempts, last_error FROM line_events WHERE event_id = ?", (event_id,)
        ).fetchone()
        return (row[0], int(row[1]), row[2]) if row else None

    def counts(self) -> dict[str, int]:
        rows = self._conn.execute("SELECT status, count(*) FROM line_events GROUP BY status").fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    def next_due(self) -> datetime | None:
        row = self._conn.execute(
            "SELECT min(next_attempt_at) FROM line_events WHERE status IN ('pending', 'running')"
        ).fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def _update(self, event_id: str, assignments: str, *values: object) -> None:
        with self._conn.write() as conn:
            conn.execute(
                f"UPDATE line_events SET {assignments}, updated_at = ? WHERE event_id = ?",
                (*values, self.clock().isoformat(), event_id),
            )
