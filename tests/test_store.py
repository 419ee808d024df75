"""The SQLite layer: migrations, WAL, locking and crash safety."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shitsuji.agent._schema import AGENT_SCHEMA
from shitsuji.audit import AUDIT_SCHEMA
from shitsuji.context._schema import CONTEXT_SCHEMA
from shitsuji.errors import SchemaTooNewError, StoreError, StoreLockedError
from shitsuji.household._schema import HOUSEHOLD_SCHEMA
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import PER_PACKAGE, Schema, migrate, open_database
from shitsuji.web._schema import WEB_SCHEMA

ALL = (MEMORY_SCHEMA, CONTEXT_SCHEMA, AGENT_SCHEMA, HOUSEHOLD_SCHEMA, WEB_SCHEMA, AUDIT_SCHEMA)


def test_each_package_migrates_its_own_tables_named_ordered_and_recorded(db_path: Path) -> None:
    conn = open_database(db_path, MEMORY_SCHEMA)  # the memory engine alone: no app tables
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "memories" in tables and "proposals" not in tables and "households" not in tables
    conn.close()
    conn = open_database(db_path, *ALL)
    rows = conn.execute("SELECT package, name FROM schema_migrations ORDER BY rowid").fetchall()
    assert rows == [(s.package, m.name) for s in ALL for m in s.migrations]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == PER_PACKAGE
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    conn = open_database(db_path, *ALL)  # reopening applies nothing twice
    assert migrate(conn, *ALL) == []
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(rows)
    conn.close()


def test_a_database_from_a_newer_version_is_refused(db_path: Path) -> None:
    conn = open_database(db_path, *ALL)
    conn.execute(
        "INSERT INTO schema_migrations (name, applied_at, package) VALUES ('0099_future', 't', 'agent')"
    )
    conn.close()
    open_database(db_path, MEMORY_SCHEMA).close()  # the memory tables are still understood
    with pytest.raises(SchemaTooNewError, match=r"0099_future.*upgrade shitsuji"):
        open_database(db_path, AGENT_SCHEMA)
    open_database(db_path, MEMORY_SCHEMA).execute(f"PRAGMA user_version = {PER_PACKAGE + 1}")
    with pytest.raises(SchemaTooNewError, match="upgrade shitsuji"):
        open_database(db_path, MEMORY_SCHEMA)


def test_a_database_from_before_per_package_migrations_is_upgraded_in_place(db_path: Path) -> None:
    conn = open_database(db_path, *ALL)
    agent_before = [m for m in AGENT_SCHEMA.migrations if m.name < "0011"]
    # what the previous release left: the ten global migrations, no package column, user_version 10
    conn.execute("DELETE FROM schema_migrations WHERE name >= '0011'")
    conn.execute("DROP TABLE audit_events")
    conn.execute("ALTER TABLE schema_migrations DROP COLUMN package")
    conn.execute("DROP TABLE turn_claims")
    conn.execute("DROP INDEX proposals_tool_use")
    conn.execute("ALTER TABLE proposals DROP COLUMN tool_use_id")
    conn.execute("DROP INDEX conversation_messages_key")
    conn.execute("ALTER TABLE conversation_messages DROP COLUMN told")
    conn.execute("ALTER TABLE conversation_messages DROP COLUMN message_key")
    conn.execute("ALTER TABLE conversation_messages DROP COLUMN untrusted")
    conn.execute("ALTER TABLE conversations DROP COLUMN summary_untrusted")
    conn.execute("DROP INDEX segments_member")
    conn.execute("ALTER TABLE segments DROP COLUMN household")
    conn.execute("ALTER TABLE segments DROP COLUMN untrusted")
    conn.execute("ALTER TABLE proposals DROP COLUMN message")
    conn.execute("ALTER TABLE households DROP COLUMN time_zone")
    conn.execute("ALTER TABLE shopping_items DROP COLUMN checked_at")
    conn.execute("ALTER TABLE shopping_items DROP COLUMN checked_by")
    conn.execute("DROP TABLE invitations")
    conn.execute("DROP TABLE audit_household_seq")
    conn.execute("ALTER TABLE proposals DROP COLUMN scope")
    conn.execute("ALTER TABLE login_failures DROP COLUMN in_flight")
    conn.execute("ALTER TABLE anniversaries DROP COLUMN scope")
    for table in ("recipe_ingredients", "recipes", "nisa_contributions", "nisa_holdings", "household_splits"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE expenses DROP COLUMN paid_by")
    conn.execute("ALTER TABLE proposals DROP COLUMN executor")
    conn.execute("ALTER TABLE events DROP COLUMN scope")
    conn.execute("ALTER TABLE todos DROP COLUMN scope")
    conn.execute("ALTER TABLE todos DROP COLUMN recur")
    conn.execute("DROP INDEX memories_without_readings")
    conn.execute("ALTER TABLE memories DROP COLUMN readings")
    conn.execute("ALTER TABLE memories DROP COLUMN search_keys")
    conn.execute("ALTER TABLE memories DROP COLUMN search_keys_by")
    conn.execute("ALTER TABLE memories DROP COLUMN about")
    conn.execute("DROP TABLE about_walked")
    conn.execute("DROP INDEX conversations_pick")
    conn.execute("CREATE INDEX conversations_owner ON conversations (owner, updated_at)")
    conn.execute("PRAGMA user_version = 10")
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == 10 >= len(agent_before)
    conn.close()
    conn = open_database(db_path, *ALL)
    rows = dict(conn.execute("SELECT name, package FROM schema_migrations").fetchall())
    assert rows["0001_memories"] == "memory" and rows["0009_web_accounts"] == "web"
    assert rows["0011_turn_claims"] == "agent" and len(rows) == sum(len(s.migrations) for s in ALL)
    assert "tool_use_id" in [r[1] for r in conn.execute("PRAGMA table_info(proposals)")]


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, definitely not sqlite " * 100)
    with pytest.raises(StoreError, match="not a shitsuji database"):
        open_database(path)


def test_a_long_held_write_lock_gives_a_clear_error(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shitsuji.store._database.BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(db_path, isolation_level=None)
    store = open_store(db_path)
    holder.execute("BEGIN IMMEDIATE")
    engine = MemoryEngine(store, HashEmbedder())
    with pytest.raises(StoreLockedError, match="locked by another process"):
        engine.remember("blocked write", "a/b")
    holder.execute("ROLLBACK")
    assert engine.remember("blocked write", "a/b").duplicate is False
    store.close()


def test_a_failed_transaction_leaves_nothing_behind(db_path: Path) -> None:
    conn = open_database(db_path, MEMORY_SCHEMA)
    with pytest.raises(RuntimeError), conn.write() as tx:
        tx.execute(
            "INSERT INTO memories (id, scope, content, category, importance, source, created_at, updated_at, "
            "content_hash) VALUES ('x', 's', 'c', 'misc', 0.5, 'remembered', 't', 't', 'h')"
        )
        raise RuntimeError("crash mid-write")
    assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_a_process_killed_mid_import_keeps_committed_batches(db_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import os
        from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
        engine = MemoryEngine(open_store({str(db_path)!r}), HashEmbedder())
        def items():
            for i in range(250):
                yield NewMemory(content=f"fact {{i}}", scope="a/b")
            os._exit(9)  # die without closing anything, mid-batch
        engine.add_many(items(), batch=100)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == 9
    store = open_store(db_path)
    engine = MemoryEngine(store, HashEmbedder())
    rows = list(engine.list_memories())
    assert len(rows) == 200  # two whole batches, no partial third
    assert engine.pending() == 200 and engine.index_pending() == 200
    store.close()


def test_conversation_blobs_become_message_rows(db_path: Path) -> None:
    older = Schema("agent", AGENT_SCHEMA.migrations[:2])  # proposals and conversations, before 0008
    conn = open_database(db_path, older)
    blob = '[{"role": "user", "content": "牛乳を買って"}, {"role": "assistant", "content": [{"type": "text", "text": "はい"}]}]'
    conn.execute(
        "INSERT INTO conversations (id, owner, household, channel, messages, created_at, updated_at) "
        "VALUES ('c1', 'wife', 'futari', 'line', ?, 't0', 't1')",
        (blob,),
    )
    conn.close()
    conn = open_database(db_path, AGENT_SCHEMA)
    rows = conn.execute(
        "SELECT seq, role, speaker, channel, content FROM conversation_messages WHERE conversation = 'c1' ORDER BY seq"
    ).fetchall()
    assert rows == [
        (0, "user", "wife", "line", '"牛乳を買って"'),
        (1, "assistant", "shitsuji", "line", '[{"type":"text","text":"はい"}]'),
    ]
    assert "messages" not in [r[1] for r in conn.execute("PRAGMA table_info(conversations)")]
