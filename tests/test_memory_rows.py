"""The memory row layer (``memory/_rows.py``) on both engines: one SQL, the same answers.

The statements that differ by engine are the prefix tests (a range in SQLite, ``LIKE`` in
PostgreSQL) and the importance kept by ``touch``; these are checked here on SQLite and on a
real PostgreSQL, beside the store's choice by engine and who closes a shared database.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shitsuji.memory import MemoryStore, NewMemory, memory_store, open_store
from shitsuji.memory._embedders import HashEmbedder
from shitsuji.memory._engine import MemoryEngine
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

from .conftest import Clock


def _engine(store: MemoryStore, clock: Clock) -> MemoryEngine:
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    engine.add_many(
        [
            NewMemory(content="tea at four", scope="home/a", id="ab_1", importance=0.4),
            NewMemory(content="coffee at nine", scope="home/a", id="ab%2"),
            NewMemory(content="the bike is blue", scope="home/ab", id="abx3"),
            NewMemory(content="the car is red", scope="home/a/kid", id="zz4"),
            NewMemory(content="a key under the pot", scope="home", id="é5"),
        ]
    )
    return engine


def test_prefixes_are_taken_literally_on_both_engines(target: str, clock: Clock) -> None:
    store = open_store(target)
    _engine(store, clock)
    assert store.resolve_id("ab_") == "ab_1"  # '_' is no wildcard
    assert store.resolve_id("ab%") == "ab%2"  # nor is '%'
    assert store.resolve_id("ab") is None  # three rows start so: ambiguous
    assert store.resolve_id("abx", scopes=["home/a"]) is None  # outside the scopes
    assert store.resolve_id("é") == "é5"
    # a scope lists itself and what is below it, never a sibling that shares its first letters
    assert [m.id for m in store.list_memories("home/a", include_deleted=False)] == ["ab_1", "ab%2", "zz4"]
    assert [m.id for m in store.list_memories("home/a", include_deleted=False, limit=1)] == ["ab_1"]
    store.close()


def test_touch_keeps_the_higher_importance_on_both_engines(target: str, clock: Clock) -> None:
    store = open_store(target)
    _engine(store, clock)
    later = datetime(2026, 2, 1, tzinfo=UTC)
    store.touch("ab_1", later, importance=0.2)
    assert store.get("ab_1").importance == 0.4  # type: ignore[union-attr]
    store.touch("ab_1", later, importance=None)
    assert store.get("ab_1").importance == 0.4  # type: ignore[union-attr]
    store.touch("ab_1", later, importance=0.9)
    touched = store.get("ab_1")
    assert touched is not None and touched.importance == 0.9 and touched.updated_at == later
    store.close()


def test_a_store_over_a_shared_database_leaves_it_open(target: str, clock: Clock) -> None:
    database = open_database(target, MEMORY_SCHEMA)
    store = memory_store(database)
    assert type(store).__name__ == (
        "PostgresMemoryStore" if database.dialect == "postgresql" else "SQLiteMemoryStore"
    )
    _engine(store, clock)
    store.close()  # the database is the caller's: still usable
    assert database.execute("SELECT count(*) FROM memories").fetchone()[0] == 5
    database.close()


def test_a_store_refuses_the_other_engines_database(target: str) -> None:
    from shitsuji.errors import StoreError
    from shitsuji.memory import SQLiteMemoryStore
    from shitsuji.memory._postgres_store import PostgresMemoryStore

    database = open_database(target, MEMORY_SCHEMA)
    wrong = SQLiteMemoryStore if database.dialect == "postgresql" else PostgresMemoryStore
    with pytest.raises(StoreError, match="open it with open_store"):
        wrong(database)
    database.close()
