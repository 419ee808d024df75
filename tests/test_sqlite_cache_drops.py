"""SQLite's in-process search caches follow a reindex's changes only once they are committed.

``reset_index`` and ``rewrite_terms`` (what ``reindex`` runs) used to drop the process's keyword
and vector caches — and move the generation those caches mirror — inside their transaction. When
that transaction rolled back (a failure later in the caller's transaction, a full disk at the
commit), the process believed its caches were one generation ahead of the file: the next liveness
change (a restore) then looked like another process's, was not followed in place, and brought the
stored generation level with the process's, so nothing ever reloaded — the restored memory stayed
out of the vector cache, not found by meaning until a restart. Now those two changes only move the
stored generation; the first search after the commit sees it and reloads (SQLite only: PostgreSQL
keeps no such caches).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._sqlite_store import SQLiteMemoryStore
from shitsuji.store import database

SCOPE = "household/futari/shared"


class Abandoned(Exception):
    """Raised inside the caller's transaction to roll it back."""


def _reset(store: SQLiteMemoryStore, memory_id: str) -> None:
    store.reset_index()


def _rewrite(store: SQLiteMemoryStore, memory_id: str) -> None:
    store.rewrite_terms([(memory_id, "plumber friday")])


@pytest.mark.parametrize("change", [_reset, _rewrite], ids=["reset_index", "rewrite_terms"])
def test_a_rolled_back_reindex_leaves_the_caches_following_later_changes(
    tmp_path: Path, change: Callable[[SQLiteMemoryStore, str], None]
) -> None:
    target = str(tmp_path / "memory.db")
    memory = MemoryEngine(open_store(target), HashEmbedder())
    store = memory.store
    assert isinstance(store, SQLiteMemoryStore)
    memory.remember("The spare key is under the blue pot", SCOPE)
    plumber = memory.remember("The plumber comes on Friday mornings", SCOPE).memory.id
    memory.forget(plumber)
    assert plumber not in [h.memory.id for h in memory.recall("plumber Friday", SCOPE, lexical=False)]

    with pytest.raises(Abandoned), database(target).write():
        change(store, plumber)
        raise Abandoned  # the caller's transaction rolls the reindex step back

    memory.restore(plumber)
    found = [h.memory.id for h in memory.recall("plumber Friday", SCOPE, lexical=False)]
    assert plumber in found  # by meaning: the vector cache took the restored memory back
    assert plumber in [h.memory.id for h in memory.recall("plumber Friday", SCOPE, semantic=False)]


@pytest.mark.parametrize("change", [_reset, _rewrite], ids=["reset_index", "rewrite_terms"])
def test_a_committed_reindex_is_followed_at_the_next_search(
    tmp_path: Path, change: Callable[[SQLiteMemoryStore, str], None]
) -> None:
    target = str(tmp_path / "memory.db")
    memory = MemoryEngine(open_store(target), HashEmbedder())
    store = memory.store
    assert isinstance(store, SQLiteMemoryStore)
    kept = memory.remember("The spare key is under the blue pot", SCOPE).memory.id
    assert [h.memory.id for h in memory.recall("spare key", SCOPE, semantic=False)] == [kept]

    change(store, kept)

    # reset: every row's terms and vectors are gone until reindexed; rewrite: the new terms hold
    found = [h.memory.id for h in memory.recall("plumber friday", SCOPE, semantic=False)]
    assert found == ([] if change is _reset else [kept])
    assert memory.recall("spare key", SCOPE, semantic=False) == []
    if change is _reset:
        assert memory.recall("spare key", SCOPE, lexical=False) == []
        memory.index_pending()
        assert [h.memory.id for h in memory.recall("spare key", SCOPE, lexical=False)] == [kept]
