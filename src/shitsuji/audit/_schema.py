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
        # every row names its owner and scope when written (``privacy``'s one rule reads them), and
        # members are shown a per-household number: the global one counted other households' writes.
        # Older rows: tool and card rows become their actor's own (they may hold a private memory's
        # words), account rows too; the rest of a household's rows are its shared ones.
        Migration(
            "0202_audit_owner_scope_household_seq",
            """
            ALTER TABLE audit_events ADD COLUMN owner TEXT;
            ALTER TABLE audit_events ADD COLUMN hseq INTEGER;
            UPDATE audit_events SET scope = 'household/' || household || '/user/' || actor
                WHERE scope IS NULL AND household IS NOT NULL AND (
                    action LIKE 'tool.%' OR action LIKE 'proposal.%' OR action LIKE 'signin.%'
                    OR action LIKE 'password.%' OR action LIKE 'line.%' OR action = 'signout');
            UPDATE audit_events SET scope = 'household/' || household
                WHERE scope IS NULL AND household IS NOT NULL;
            UPDATE audit_events SET owner = actor;
            UPDATE audit_events SET hseq = r.n FROM (
                SELECT seq AS rseq, ROW_NUMBER() OVER (PARTITION BY household ORDER BY seq) AS n
                FROM audit_events WHERE household IS NOT NULL
            ) AS r WHERE audit_events.seq = r.rseq;
            CREATE TABLE audit_household_seq (
                household TEXT PRIMARY KEY,
                last INTEGER NOT NULL
            );
            INSERT INTO audit_household_seq (household, last)
                SELECT household, MAX(hseq) FROM audit_events WHERE household IS NOT NULL GROUP BY household;
            CREATE UNIQUE INDEX audit_events_household_hseq ON audit_events (household, hseq)
            """,
        ),
    ),
)
