"""The audit package's table: one row per change, who made it, where, and to what."""

from __future__ import annotations

from ..store import Migration, Schema

AUDIT_SCHEMA = Schema(
    "audit",
    (
        Migration(
            "0201_audit_events",
            """
            CREATE TABLE audit_events (
                seq INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                household TEXT,
                actor TEXT NOT NULL,
                channel TEXT,
                conversation TEXT,
                action TEXT NOT NULL,
                subject TEXT,
                scope TEXT,
                detail TEXT NOT NULL DEFAULT '{}'
            );
            CREATE INDEX audit_events_household ON audit_events (household, seq)
            """,
        ),
    ),
)
