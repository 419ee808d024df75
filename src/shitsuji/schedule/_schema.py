"""The scheduler's tables: who wants what (settings), every delivery ever decided (one row per
(member, reminder, occurrence), unique), the planner's high-water mark and the month's push count.

The unique ``dkey`` is the whole exactly-once story: a planner that runs twice, two workers that
plan the same minute, a restart that plans the downtime again — each inserts with
``ON CONFLICT DO NOTHING``, and only one row per occurrence can exist; the row's status then says
whether it was pushed (and LINE's retry key, derived from ``dkey``, makes the push itself once).
"""

from __future__ import annotations

from ..household import HOUSEHOLD_SCHEMA
from ..line import LINE_SCHEMA
from ..store import Migration, Schema

SCHEDULE_SCHEMA = Schema(
    "schedule",
    (
        Migration(
            "0201_schedule",
            """
            CREATE TABLE schedule_settings (
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                member TEXT NOT NULL,
                reminders INTEGER NOT NULL DEFAULT 0,
                digest INTEGER NOT NULL DEFAULT 0,
                digest_at TEXT NOT NULL DEFAULT '07:30',
                lead_minutes INTEGER NOT NULL DEFAULT 30,
                quiet_from TEXT,
                quiet_to TEXT,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (household, member)
            );
            CREATE INDEX schedule_settings_digest ON schedule_settings (digest, digest_at);
            CREATE TABLE schedule_deliveries (
                id INTEGER PRIMARY KEY,
                dkey TEXT NOT NULL UNIQUE,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('reminder', 'digest')),
                source TEXT NOT NULL,
                ref TEXT NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                occurs_at TEXT NOT NULL,
                fire_at TEXT NOT NULL,
                due_at TEXT NOT NULL,
                late INTEGER NOT NULL DEFAULT 0,
                line_user TEXT,
                status TEXT NOT NULL CHECK (status IN
                    ('pending', 'sending', 'sent', 'web', 'folded', 'digested', 'dropped', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                counted INTEGER NOT NULL DEFAULT 0,
                lease_until TEXT,
                last_error TEXT,
                created_at TEXT NOT NULL,
                sent_at TEXT,
                read_at TEXT
            );
            CREATE INDEX schedule_deliveries_due ON schedule_deliveries (status, due_at);
            CREATE INDEX schedule_deliveries_member ON schedule_deliveries (household, member, id);
            CREATE TABLE schedule_marks (
                name TEXT PRIMARY KEY,
                planned_to TEXT NOT NULL
            );
            CREATE TABLE schedule_pushes (
                month TEXT PRIMARY KEY,
                used INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX schedule_events_start ON events (start_at);
            CREATE INDEX schedule_events_created ON events (created_at);
            CREATE INDEX schedule_todos_due ON todos (due);
            CREATE INDEX schedule_todos_created ON todos (created_at)
            """,
        ),
        # how many days before an anniversary a member who takes reminders hears of it (0: not at all)
        Migration(
            "0202_h21_anniversary_days",
            "ALTER TABLE schedule_settings ADD COLUMN anniversary_days INTEGER NOT NULL DEFAULT 3;",
        ),
    ),
    requires=(HOUSEHOLD_SCHEMA, LINE_SCHEMA),
)
