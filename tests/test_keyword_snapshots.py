"""Keyword snapshots: a large scope's index is stored once and loaded by later processes,
never reviving forgotten rows, never outliving a purge, and ignored when damaged."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, SQLiteMemoryStore, open_store
from shitsuji.memory._sqlite_store import SNAPSHOT_MIN_ROWS
from shitsuji.store import BUSY_TIMEOUT_S

SCOPE = "projects/api"


def engine(db: Path) -> MemoryEngine:
    """A fresh store: what a new process (the prompt hook) starts with."""
    return MemoryEngine(open_store(db), HashEmbedder())


def ids(memory: MemoryEngine, query: str) -> list[str]:
    return [h.memory.id for h in memory.recall(query, SCOPE, k=3, semantic=False)]


@pytest.fixture
def filled(db_path: Path) -> str:
    """A scope just large enough for a snapshot, with one memorable fact; returns its id."""
    first = engine(db_path)
    first.add_many(NewMemory(f"note {i}: the build runs step {i}", SCOPE) for i in range(SNAPSHOT_MIN_ROWS))
    fact = first.remember("Deploys go through the staging cluster first", SCOPE).memory.id
    first.store.close()
    return fact


def snapshots(db: Path) -> list[tuple[str, int]]:
    return sqlite3.connect(db).execute("SELECT scope, last_rowid FROM keyword_snapshots").fetchall()


def scramble_terms(db: Path) -> None:
    """Change the stored terms behind the index's back (no generation bump): only a snapshot still knows them."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE memories SET terms = 'zzz'")


def test_a_cold_process_loads_the_scope_from_its_snapshot(db_path: Path, filled: str) -> None:
    assert snapshots(db_path) == []
    assert ids(engine(db_path), "staging cluster") == [filled]  # first cold search writes it
    assert snapshots(db_path) == [(SCOPE, SNAPSHOT_MIN_ROWS + 1)]
    scramble_terms(db_path)
    assert ids(engine(db_path), "staging cluster") == [filled]  # the words came from the snapshot


def test_rows_added_after_the_snapshot_are_found_too(db_path: Path, filled: str) -> None:
    ids(engine(db_path), "staging")
    later = engine(db_path)
    added = later.remember("The staging cluster lives in Osaka", SCOPE).memory.id
    later.store.close()
    assert set(ids(engine(db_path), "staging cluster")) == {filled, added}


def test_forgetting_makes_the_snapshot_stale_so_the_row_stays_forgotten(db_path: Path, filled: str) -> None:
    ids(engine(db_path), "staging")
    other = engine(db_path)
    other.forget(filled)
    other.store.close()
    assert ids(engine(db_path), "staging cluster") == []
    other = engine(db_path)
    other.restore(filled)
    other.store.close()
    assert ids(engine(db_path), "staging cluster") == [filled]


def test_purge_deletes_the_snapshots(db_path: Path, filled: str) -> None:
    ids(engine(db_path), "staging")
    assert snapshots(db_path)
    other = engine(db_path)
    other.forget(filled)
    assert other.purge() == 1
    assert snapshots(db_path) == []


@pytest.mark.parametrize(
    "damage",
    [
        "not json",
        '{"ids": [], "counts": [], "lengths": [], "postings": {}}',  # well formed, but not what the rows say
        '{"ids": ["x"], "counts": [1], "lengths": [1], "postings": {"stage": [7]}}',  # slot out of range
    ],
)
def test_a_damaged_snapshot_is_ignored(db_path: Path, filled: str, damage: str) -> None:
    ids(engine(db_path), "staging")
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE keyword_snapshots SET data = ?", (damage.encode(),))
    assert ids(engine(db_path), "staging cluster") == [filled]


def test_a_busy_database_skips_the_snapshot_without_waiting(db_path: Path, filled: str) -> None:
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        start = time.monotonic()
        assert ids(engine(db_path), "staging cluster") == [filled]
        assert time.monotonic() - start < BUSY_TIMEOUT_S  # did not wait for the lock
    finally:
        holder.execute("ROLLBACK")
    assert snapshots(db_path) == []
    assert ids(engine(db_path), "staging cluster") == [filled]
    assert snapshots(db_path) == [(SCOPE, SNAPSHOT_MIN_ROWS + 1)]


def test_small_scopes_have_no_snapshot(db_path: Path) -> None:
    small = engine(db_path)
    small.remember("Deploys go through staging", SCOPE)
    assert ids(small, "staging") and snapshots(db_path) == []


def test_an_index_mostly_of_forgotten_rows_is_rebuilt_lean(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shitsuji.memory._sqlite_store as sqlite_store

    monkeypatch.setattr(sqlite_store, "COMPACT_MIN_DEAD", 3)
    memory = engine(db_path)
    kept = memory.remember("Deploys go through the staging cluster first", SCOPE).memory.id
    doomed = [memory.remember(f"temporary note {i} about staging", SCOPE).memory.id for i in range(6)]
    assert kept in ids(memory, "staging cluster")
    store = memory.store
    assert isinstance(store, SQLiteMemoryStore)
    for memory_id in doomed:
        memory.forget(memory_id)
    slots = store._keywords.slots
    assert slots.size - slots.live <= slots.live or slots.size == 0  # dead slots did not pile up
    assert ids(memory, "staging") == [kept]
    assert store._keywords.slots.size == 1  # reloaded with the live row only
