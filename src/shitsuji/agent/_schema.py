"""The agent package's tables: proposals, conversations and their messages, turn claims."""

from __future__ import annotations

from ..context._schema import CONTEXT_SCHEMA
from ..store import Migration, Schema

_MESSAGES = """
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
)"""

AGENT_SCHEMA = Schema(
    "agent",
    (
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
            "0006_conversation_summary",
            """
            ALTER TABLE conversations ADD COLUMN summary TEXT NOT NULL DEFAULT '';
            ALTER TABLE conversations ADD COLUMN folded_upto INTEGER NOT NULL DEFAULT 0;
            """,
        ),
        Migration(
            "0008_conversation_messages",
            f"""
            {_MESSAGES};
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
            # PostgreSQL databases start after this release: there are no message blobs to move
            postgres=f"{_MESSAGES}; ALTER TABLE conversations DROP COLUMN messages",
        ),
        Migration(
            "0011_turn_claims",
            """
            CREATE TABLE turn_claims (
                conversation TEXT PRIMARY KEY,
                holder TEXT NOT NULL,
                claimed_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
        ),
        Migration(
            "0012_proposal_tool_use",
            """
            ALTER TABLE proposals ADD COLUMN tool_use_id TEXT;
            CREATE INDEX proposals_tool_use ON proposals (conversation, tool_use_id)
            """,
        ),
        Migration(
            "0013_message_notes",
            """
            ALTER TABLE conversation_messages ADD COLUMN told TEXT;
            ALTER TABLE conversation_messages ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE conversation_messages ADD COLUMN message_key TEXT;
            ALTER TABLE conversations ADD COLUMN summary_untrusted INTEGER NOT NULL DEFAULT 0;
            CREATE UNIQUE INDEX conversation_messages_key ON conversation_messages (conversation, message_key)
                WHERE message_key IS NOT NULL
            """,
        ),
        Migration(
            "0015_segment_household",
            """
            UPDATE segments SET household = (SELECT c.household FROM conversations c WHERE c.id = segments.conversation)
                WHERE household IS NULL
            """,
        ),
        # the message (``conversation:seq``) whose words led to the proposal: a fact remembered on
        # approval points back to it ("why do you know this?")
        Migration("0016_proposal_message", "ALTER TABLE proposals ADD COLUMN message TEXT"),
        # who holds a running card or a turn (``Database.holder()``): a process that died is noticed
        # at once, instead of a card "being carried out" forever or a claim blocking for its lease
        Migration(
            "0017_crash_holders",
            """
            ALTER TABLE proposals ADD COLUMN executor TEXT;
            ALTER TABLE turn_claims ADD COLUMN process TEXT
            """,
        ),
        # a card carries its scope (the household's, or its owner's own for a private tool): its audit
        # rows are shown by it; older cards count as their owner's own
        Migration(
            "0018_proposal_scope",
            "ALTER TABLE proposals ADD COLUMN scope TEXT; "
            "UPDATE proposals SET scope = 'household/' || household || '/user/' || owner "
            "WHERE household IS NOT NULL",
        ),
        # a turn claim is a lease for the seconds a turn runs: on PostgreSQL it is written to no WAL, so
        # taking and letting go of one waits for no disk flush (two of a turn's four commits); a crash
        # of the server empties the table, which releases every claim (what their processes' end does)
        Migration("0019_pgturn_unlogged_claims", "", postgres="ALTER TABLE turn_claims SET UNLOGGED"),
        # a turn picks the member's latest conversation in a channel (its claim): one probe of this index
        # in the order the pick sorts (SQLite keeps the rowid at the end of every index entry; PostgreSQL
        # is given it). It replaces ``conversations_owner``, which left the household and the channel to
        # a filter — every conversation of every member of that name in any household, each turn
        Migration(
            "0020_pt25e_conversation_pick",
            """
            CREATE INDEX conversations_pick ON conversations (owner, household, channel, updated_at);
            DROP INDEX conversations_owner
            """,
            postgres="""
            CREATE INDEX conversations_pick ON conversations (owner, household, channel, updated_at DESC, rowid DESC);
            DROP INDEX conversations_owner
            """,
        ),
    ),
    requires=(CONTEXT_SCHEMA,),
)
