"""The LINE channel's tables: linked accounts and one-time link codes (in the shitsuji database), and the
webhook events it must answer (in the inbox, a database file of their own beside it: storing an event to
acknowledge LINE never waits for a turn's writes)."""

from __future__ import annotations

from ..store import Migration, Schema, is_postgres

LINE_SCHEMA = Schema(
    "line",
    (
        Migration(
            "0101_line_links",
            """
            CREATE TABLE line_links (
                line_user TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                linked_at TEXT NOT NULL,
                lang TEXT,
                UNIQUE (household, member)
            );
            CREATE TABLE line_link_codes (
                code_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE INDEX line_link_codes_member ON line_link_codes (household, member)
            """,
        ),
        # a forgotten web password is recovered through the member's own linked LINE account: the
        # code is sent to that account only, and wrong link/reset codes are counted (throttled)
        Migration(
            "0103_line_reset_codes_and_code_failures",
            """
            CREATE TABLE line_reset_codes (
                code_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                line_user TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE INDEX line_reset_codes_member ON line_reset_codes (household, member);
            CREATE TABLE line_code_failures (
                key TEXT NOT NULL,
                at TEXT NOT NULL
            );
            CREATE INDEX line_code_failures_key ON line_code_failures (key, at)
            """,
        ),
    ),
)

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
