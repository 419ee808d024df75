"""The memory package's tables: memories, their embeddings, extraction jobs, keyword snapshots."""

from __future__ import annotations

from ..store import Migration, Schema

MEMORY_SCHEMA = Schema(
    "memory",
    (
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
    ),
)
