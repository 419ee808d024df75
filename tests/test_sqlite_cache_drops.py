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

Forget and restore follow their change in this process's caches at once (a server that forgets a
memory does not reload every scope) and used to step the process's generation to the stored one
plus one inside the transaction: rolled back, the next change — another forget, a reindex step, a
purge, another process's — brought the file to that same number, and the caches kept the rolled
back change (a kept memory missing, a forgotten one found). Now a change followed in place tags the
file with a fresh random generation that no rolled-back file and no counting writer reaches.
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


def _opened(tmp_path: Path) -> tuple[str, MemoryEngine, SQLiteMemoryStore]:
    """A SQLite memory file (its path, for ``database(path).write()``), its engine and store."""
    path = str(tmp_path / "memory.db")
    memory = MemoryEngine(open_store(path), HashEmbedder())
    store = memory.store
    assert isinstance(store, SQLiteMemoryStore)
    return path, memory, store


def _found(memory: MemoryEngine, query: str, **how: bool) -> list[str]:
    return [h.memory.id for h in memory.recall(query, SCOPE, **how)]


@pytest.mark.parametrize("change", [_reset, _rewrite], ids=["reset_index", "rewrite_terms"])
def test_a_rolled_back_reindex_leaves_the_caches_following_later_changes(
    tmp_path: Path, change: Callable[[SQLiteMemoryStore, str], None]
) -> None:
    target, memory, store = _opened(tmp_path)
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
    _, memory, store = _opened(tmp_path)
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


def _forget_other(memory: MemoryEngine, store: SQLiteMemoryStore, other: str) -> None:
    memory.forget(other)


def _rewrite_other(memory: MemoryEngine, store: SQLiteMemoryStore, other: str) -> None:
    store.rewrite_terms([(other, "garden hose")])


@pytest.mark.parametrize("later", [_forget_other, _rewrite_other], ids=["forget", "rewrite_terms"])
@pytest.mark.parametrize("rolled_back", ["forget", "restore"])
def test_a_rolled_back_liveness_change_is_not_kept_by_the_caches(
    tmp_path: Path, rolled_back: str, later: Callable[[MemoryEngine, SQLiteMemoryStore, str], None]
) -> None:
    target, memory, store = _opened(tmp_path)
    other = memory.remember("The spare key is under the blue pot", SCOPE).memory.id
    plumber = memory.remember("The plumber comes on Friday mornings", SCOPE).memory.id
    if rolled_back == "restore":
        memory.forget(plumber)
    assert _found(memory, "plumber Friday", lexical=False)  # both caches loaded for the scope
    assert _found(memory, "spare key", semantic=False) == [other]

    with pytest.raises(Abandoned), database(target).write():
        getattr(memory, rolled_back)(plumber)  # followed in this process's caches at once
        raise Abandoned  # the caller's transaction rolls the forget or restore back

    later(memory, store, other)  # another change before any search
    live = rolled_back == "forget"  # the rolled-back change did not happen
    assert (plumber in _found(memory, "plumber Friday", lexical=False)) is live
    assert (plumber in _found(memory, "plumber Friday", semantic=False)) is live
    assert other not in _found(memory, "spare key", semantic=False)  # the later change is followed


def test_a_committed_forget_and_restore_are_followed_in_place(tmp_path: Path) -> None:
    """The fix keeps what in-place following is for: no reload of the scope after a forget."""
    _, memory, store = _opened(tmp_path)
    plumber = memory.remember("The plumber comes on Friday mornings", SCOPE).memory.id
    assert _found(memory, "plumber Friday", semantic=False) == [plumber]
    assert _found(memory, "plumber Friday", lexical=False) == [plumber]
    keywords, vectors = store._keywords, dict(store._vectors)

    memory.forget(plumber)
    assert _found(memory, "plumber Friday", semantic=False) == []
    memory.restore(plumber)
    assert _found(memory, "plumber Friday", semantic=False) == [plumber]
    assert _found(memory, "plumber Friday", lexical=False) == [plumber]
    assert store._keywords is keywords and store._vectors == vectors  # the same caches, not reloaded
