"""The web app's tables: passwords, sessions, failed sign-ins and invitations."""

from __future__ import annotations

from ..store import Migration, Schema

WEB_SCHEMA = Schema(
    "web",
    (
        Migration(
            "0009_web_accounts",
            """
            CREATE TABLE member_passwords (
                household TEXT NOT NULL,
                "user" TEXT NOT NULL,
                hash TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (household, "user")
            );
            CREATE TABLE web_sessions (
                token_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                "user" TEXT NOT NULL,
                csrf TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            );
            CREATE INDEX web_sessions_user ON web_sessions (household, "user");
            CREATE TABLE login_failures (
                key TEXT NOT NULL,
                at TEXT NOT NULL
            );
            CREATE INDEX login_failures_key ON login_failures (key, at);
            """,
        ),
        # one-time links to join a household (or to set a forgotten password), stored hashed
        Migration(
            "0016_web_invitations",
            """
            CREATE TABLE invitations (
                token_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                "user" TEXT NOT NULL,
                created_by TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE INDEX invitations_member ON invitations (household, "user");
            """,
        ),
        # a sign-in check running now counts against its address only while it runs (a shared
        # NAT's members signing in at once must not lock each other out): marked until it fails
        Migration(
            "0017_web_login_attempts_in_flight",
            "ALTER TABLE login_failures ADD COLUMN in_flight INTEGER NOT NULL DEFAULT 0",
        ),
    ),
)
