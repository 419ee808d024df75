"""The LINE channel's tables: linked accounts and one-time link codes (in the shitsuji database), and the
webhook events it must answer (in the inbox, a database file of their own beside it: storing an event to
acknowledge LINE never waits for a turn's writes)."""

from __future__ import annotations

from ..household._line_links import LINE_SCHEMA
from ..store import Migration, Schema, is_postgres

__all__ = ["LINE_INBOX_SCHEMA", "LINE_SCHEMA", "inbox_path"]

LINE_INBOX_SCHEMA = Schema(
    "line-inbox",
    (
        Migration(
            "0102_line_events",
            """
            CREATE TABLE line_events (
                event_id TEXT PRIMARY KEY,
                sender TEXT NOT NULL,
                payload TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT NOT NULL,
                answer TEXT,
                sent INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                received_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            CREATE INDEX line_events_open ON line_events (sender) WHERE status IN ('pending', 'running');
            CREATE INDEX line_events_updated ON line_events (updated_at)
            """,
        ),
    ),
)


def inbox_path(database: str) -> str:
    """The inbox's own file beside a SQLite shitsuji database (an in-memory database keeps it inside);
    in PostgreSQL the inbox is a table of the same database (rows don't share a write lock)."""
    if database == ":memory:" or is_postgres(database):
        return database
    return f"{database}-line-inbox"
