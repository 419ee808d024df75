"""The SQLite layer: migrations, WAL, locking and crash safety."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shitsuji.errors import SchemaTooNewError, StoreError, StoreLockedError
from shitsuji.memory import HashEmbedder, MemoryEngine, SQLiteMemoryStore
from shitsuji.store import MIGRATIONS, SCHEMA_VERSION, connect, write


def test_migrations_are_named_ordered_and_recorded(db_path: Path) -> None:
    conn = connect(db_path)
    names = [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [m.name for m in MIGRATIONS] == sorted(names)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    conn = connect(db_path)  # reopening applies nothing twice
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def test_a_database_from_a_newer_version_is_refused(db_path: Path) -> None:
    connect(db_path).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNewError, match="upgrade shitsuji"):
        connect(db_path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, definitely not sqlite " * 100)
    with pytest.raises(StoreError, match="not a shitsuji database"):
        connect(path)


def test_a_long_held_write_lock_gives_a_clear_error(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shitsuji.store._sqlite.BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(db_path, isolation_level=None)
    store = SQLiteMemoryStore(db_path)
    holder.execute("BEGIN IMMEDIATE")
    engine = MemoryEngine(store, HashEmbedder())
    with pytest.raises(StoreLockedError, match="locked by another process"):
        engine.remember("blocked write", "a/b")
    holder.execute("ROLLBACK")
    assert engine.remember("blocked write", "a/b").duplicate is False
    store.close()


def test_a_failed_transaction_leaves_nothing_behind(db_path: Path) -> None:
    conn = connect(db_path)
    with pytest.raises(RuntimeError), write(conn):
        conn.execute(
            "INSERT INTO memories (id, scope, content, category, importance, source, created_at, updated_at, "
            "content_hash) VALUES ('x', 's', 'c', 'misc', 0.5, 'remembered', 't', 't', 'h')"
        )
        raise RuntimeError("crash mid-write")
    assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_a_process_killed_mid_import_keeps_committed_batches(db_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import os
        from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, SQLiteMemoryStore
        engine = MemoryEngine(SQLiteMemoryStore({str(db_path)!r}), HashEmbedder())
        def items():
            for i in range(250):
                yield NewMemory(content=f"fact {{i}}", scope="a/b")
            os._exit(9)  # die without closing anything, mid-batch
        engine.add_many(items(), batch=100)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == 9
    store = SQLiteMemoryStore(db_path)
    engine = MemoryEngine(store, HashEmbedder())
    rows = list(engine.list_memories())
    assert len(rows) == 200  # two whole batches, no partial third
    assert engine.pending() == 200 and engine.index_pending() == 200
    store.close()


def test_conversation_blobs_become_message_rows(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shitsuji.store._migrations as migrations

    older = migrations.MIGRATIONS[:7]
    monkeypatch.setattr(migrations, "MIGRATIONS", older)
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", len(older))
    conn = connect(db_path)
    blob = '[{"role": "user", "content": "牛乳を買って"}, {"role": "assistant", "content": [{"type": "text", "text": "はい"}]}]'
    conn.execute(
        "INSERT INTO conversations (id, owner, household, channel, messages, created_at, updated_at) "
        "VALUES ('c1', 'wife', 'futari', 'line', ?, 't0', 't1')",
        (blob,),
    )
    conn.close()
    monkeypatch.undo()
    conn = connect(db_path)
    rows = conn.execute(
        "SELECT seq, role, speaker, channel, content FROM conversation_messages WHERE conversation = 'c1' ORDER BY seq"
    ).fetchall()
    assert rows == [
        (0, "user", "wife", "line", '"牛乳を買って"'),
        (1, "assistant", "shitsuji", "line", '[{"type":"text","text":"はい"}]'),
    ]
    assert "messages" not in [r[1] for r in conn.execute("PRAGMA table_info(conversations)")]
