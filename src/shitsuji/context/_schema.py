"""The context package's tables: archived conversation segments."""

from __future__ import annotations

from ..store import Migration, Schema

CONTEXT_SCHEMA = Schema(
    "context",
    (
        Migration(
            "0007_segments",
            """
            CREATE TABLE segments (
                id TEXT PRIMARY KEY,
                conversation TEXT NOT NULL,
                owner TEXT NOT NULL,
                label TEXT NOT NULL,
                opened_at TEXT NOT NULL,
                closed_at TEXT,
                first_message INTEGER NOT NULL,
                last_message INTEGER,
                summary TEXT,
                messages TEXT
            );
            CREATE INDEX segments_owner ON segments (owner, label, opened_at);
            CREATE INDEX segments_open ON segments (conversation, closed_at);
            """,
        ),
        Migration(
            "0014_segment_household",
            """
            ALTER TABLE segments ADD COLUMN household TEXT;
            CREATE INDEX segments_member ON segments (household, owner, label, opened_at)
            """,
        ),
        Migration(
            "0016_segment_untrusted",
            """
            ALTER TABLE segments ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0
            """,
        ),
    ),
)
