"""Named, ordered schema migrations for the SQLite store.

Each migration runs once, in order, inside one transaction with its bookkeeping row, so
a crash leaves the database at the previous version. ``PRAGMA user_version`` mirrors the
number applied; a database whose version is higher than we know was written by a newer
shitsuji and is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from ..errors import SchemaTooNewError


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_memories",
        """
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            scope TEXT NOT NULL,
            content TEXT NOT NULL,
            category TEXT NOT NULL,
            importance REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
            source TEXT NOT NULL,
            provenance TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            valid_until TEXT,
            deleted_at TEXT,
            content_hash TEXT NOT NULL,
            embedding_model TEXT,
            terms TEXT NOT NULL DEFAULT '',
            context TEXT
        );
        CREATE INDEX memories_scope ON memories (scope, deleted_at);
        CREATE INDEX memories_hash ON memories (content_hash, scope);
        CREATE INDEX memories_unindexed ON memories (embedding_model);
        CREATE TABLE embeddings (
            memory_rowid INTEGER PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            chunks INTEGER NOT NULL,
            vectors BLOB NOT NULL,
            seq INTEGER NOT NULL
        );
        CREATE INDEX embeddings_seq ON embeddings (seq);
        CREATE TABLE index_state (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
        INSERT INTO index_state (id, generation) VALUES (1, 0);
        """,
    ),
    Migration(
        "0002_proposals",
        """
        CREATE TABLE proposals (
            id TEXT PRIMARY KEY,
            tool TEXT NOT NULL,
            input TEXT NOT NULL,
            input_hash TEXT NOT NULL,
            summary TEXT NOT NULL,
            owner TEXT NOT NULL,
            household TEXT,
            channel TEXT NOT NULL,
            conversation TEXT,
            status TEXT NOT NULL
                CHECK (status IN ('pending', 'running', 'approved', 'rejected', 'failed')),
            result TEXT,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            decided_at TEXT,
            decided_by TEXT
        );
        CREATE INDEX proposals_owner ON proposals (owner, status);
        CREATE INDEX proposals_conversation ON proposals (conversation, status);
        """,
    ),
    Migration(
        "0003_household",
        """
        CREATE TABLE households (
            name TEXT PRIMARY KEY,
            created_at TEXT NOT NULL
        );
        CREATE TABLE household_members (
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            user TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (household, user)
        );
        CREATE INDEX household_members_user ON household_members (user);
        CREATE TABLE shopping_items (
            id TEXT PRIMARY KEY,
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            name TEXT NOT NULL,
            quantity INTEGER NOT NULL CHECK (quantity >= 1),
            added_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX shopping_items_household ON shopping_items (household, created_at);
        CREATE TABLE events (
            id TEXT PRIMARY KEY,
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            title TEXT NOT NULL,
            start_at TEXT NOT NULL,
            end_at TEXT,
            note TEXT,
            added_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX events_household_start ON events (household, start_at);
        CREATE TABLE todos (
            id TEXT PRIMARY KEY,
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            title TEXT NOT NULL,
            due TEXT,
            done_at TEXT,
            done_by TEXT,
            added_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX todos_household_open ON todos (household, done_at);
        CREATE TABLE expenses (
            id TEXT PRIMARY KEY,
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            amount_yen INTEGER NOT NULL CHECK (amount_yen > 0),
            category TEXT NOT NULL,
            note TEXT,
            spent_on TEXT NOT NULL,
            added_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX expenses_household_day ON expenses (household, spent_on);
        CREATE TABLE anniversaries (
            id TEXT PRIMARY KEY,
            household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
            title TEXT NOT NULL,
            day TEXT NOT NULL,
            note TEXT,
            added_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX anniversaries_household ON anniversaries (household, day);
        """,
    ),
    Migration(
        "0004_conversations",
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            household TEXT,
            channel TEXT NOT NULL,
            messages TEXT NOT NULL DEFAULT '[]',
            told TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX conversations_owner ON conversations (owner, updated_at);
        """,
    ),
    Migration(
        "0005_extraction_jobs",
        """
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at TEXT NOT NULL,
            last_error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX jobs_due ON jobs (status, next_attempt_at);
        """,
    ),
    Migration(
        "0006_conversation_summary",
        """
        ALTER TABLE conversations ADD COLUMN summary TEXT NOT NULL DEFAULT '';
        ALTER TABLE conversations ADD COLUMN folded_upto INTEGER NOT NULL DEFAULT 0;
        """,
    ),
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
        "0008_conversation_messages",
        """
        CREATE TABLE conversation_messages (
            conversation TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            speaker TEXT NOT NULL,
            channel TEXT NOT NULL,
            content TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            segment TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (conversation, seq)
        );
        INSERT INTO conversation_messages (conversation, seq, role, speaker, channel, content, tokens, created_at)
            SELECT c.id, CAST(j.key AS INTEGER), json_extract(j.value, '$.role'),
                   CASE json_extract(j.value, '$.role') WHEN 'user' THEN c.owner ELSE 'shitsuji' END,
                   c.channel,
                   CASE json_type(j.value, '$.content')
                       WHEN 'text' THEN json_quote(json_extract(j.value, '$.content'))
                       ELSE json_extract(j.value, '$.content') END,
                   0, c.updated_at
            FROM conversations c, json_each(c.messages) j;
        ALTER TABLE conversations DROP COLUMN messages
        """,
    ),
    Migration(
        "0009_web_accounts",
        """
        CREATE TABLE member_passwords (
            household TEXT NOT NULL,
            user TEXT NOT NULL,
            hash TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (household, user)
        );
        CREATE TABLE web_sessions (
            token_hash TEXT PRIMARY KEY,
            household TEXT NOT NULL,
            user TEXT NOT NULL,
            csrf TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL
        );
        CREATE INDEX web_sessions_user ON web_sessions (household, user);
        CREATE TABLE login_failures (
            key TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX login_failures_key ON login_failures (key, at);
        """,
    ),
    Migration(
        "0010_keyword_snapshots",
        """
        CREATE TABLE keyword_snapshots (
            scope TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,
            last_rowid INTEGER NOT NULL,
            format TEXT NOT NULL,
            data BLOB NOT NULL
        );
        """,
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Bring the schema up to date; return the names of the migrations applied now."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"this database has schema version {version}, but this shitsuji knows only up to "
            f"{SCHEMA_VERSION}: upgrade shitsuji (pip install -U shitsuji) or use another --db"
        )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied: list[str] = []
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                (migration.name, datetime.now(UTC).isoformat()),
            )
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(migration.name)
    return applied


def _statements(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]
