"""The memory store on the process's one database (issue 19), on both engines.

A memory change and the audit row recording it are one transaction: when the audit row cannot be
written, the change is not made either (and a caller's transaction that rolls back takes both
with it). Threads searching, remembering and forgetting at once through one engine keep the
in-process indexes right (SQLite's caches are shared by every worker thread of a process).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from shitsuji.audit import AuditLog
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import Database, database, is_postgres

SCOPE = "household/futari/shared"


def _engine(target: str) -> MemoryEngine:
    return MemoryEngine(open_store(target), HashEmbedder(), audit=AuditLog(database(target)))


def _refuse_audit_rows(db: Database) -> None:
    """Make the database itself refuse every new audit row (a full disk, a broken audit table)."""
    if is_postgres(db.target):
        db.execute(
            "CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'audit refused'; END $$"
        )
        db.execute(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()"
        )
    else:
        db.execute(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit refused'); END"
        )


def _allow_audit_rows(db: Database) -> None:
    db.execute("DROP TRIGGER refuse_audit" + (" ON audit_events" if is_postgres(db.target) else ""))


def _count(db: Database, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


def test_the_memory_store_holds_the_process_database(target: str) -> None:
    memory = _engine(target)
    assert memory.store.database is database(target)
    assert memory.audit is not None and memory.audit.database is memory.store.database


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda m, ids: m.remember("ゴミの日は火曜日", SCOPE), id="remember"),
        pytest.param(lambda m, ids: m.forget(ids[0]), id="forget"),
        pytest.param(lambda m, ids: m.edit(ids[0], content="ゴミの日は水曜日"), id="edit"),
        pytest.param(lambda m, ids: m.restore(ids[1]), id="restore"),
        pytest.param(lambda m, ids: m.purge(), id="purge"),
    ],
)
def test_a_change_whose_audit_row_fails_is_not_made(
    target: str, change: Callable[[MemoryEngine, list[str]], object]
) -> None:
    memory = _engine(target)
    db = database(target)
    kept = memory.remember("The spare key is under the blue pot", SCOPE).memory.id
    gone = memory.remember("The plumber comes on Friday", SCOPE).memory.id
    memory.forget(gone)
    memories = "SELECT count(*) FROM memories WHERE deleted_at IS NULL"
    before = (_count(db, memories), _count(db, "SELECT count(*) FROM memories"))
    audited = _count(db, "SELECT count(*) FROM audit_events")
    _refuse_audit_rows(db)
    with pytest.raises(Exception, match="audit refused"):  # the engine's own error (sqlite3, psycopg)
        change(memory, [kept, gone])
    _allow_audit_rows(db)
    assert (_count(db, memories), _count(db, "SELECT count(*) FROM memories")) == before
    assert _count(db, "SELECT count(*) FROM audit_events") == audited
    # the caches of this process still answer as the rows say
    assert [h.memory.id for h in memory.recall("spare key", SCOPE, k=1)] == [kept]
    assert gone not in [h.memory.id for h in memory.recall("plumber Friday", SCOPE)]


def test_a_caller_transaction_that_rolls_back_takes_the_change_and_its_audit_row(target: str) -> None:
    memory = _engine(target)
    db = database(target)
    kept = memory.remember("The spare key is under the blue pot", SCOPE).memory.id

    class Undo(Exception):
        pass

    with pytest.raises(Undo), db.write():
        memory.forget(kept)
        memory.remember("The plumber comes on Friday", SCOPE)
        raise Undo
    assert _count(db, "SELECT count(*) FROM memories") == 1
    assert [e.action for e in memory.audit.events()] == ["memory.remembered"]  # type: ignore[union-attr]
    assert [h.memory.id for h in memory.recall("spare key", SCOPE, k=1)] == [kept]
    assert memory.forget(kept).deleted_at is not None  # and it still can be forgotten for real
    assert memory.recall("spare key blue pot", SCOPE) == []


def test_threads_search_remember_and_forget_through_one_engine(target: str) -> None:
    memory = _engine(target)
    rounds = 12

    def work(n: int) -> tuple[str, str]:
        kept = memory.remember(f"worker {n} keeps the note about tomatoes {n}", SCOPE).memory.id
        dropped = memory.remember(f"worker {n} drops the note about cucumbers {n}", SCOPE).memory.id
        for _ in range(3):
            memory.recall(f"tomatoes {n}", SCOPE, k=3)
            memory.recall(f"cucumbers {n}", SCOPE, k=3, semantic=False)
        memory.forget(dropped)
        memory.recall(f"cucumbers {n}", SCOPE, k=3)
        return kept, dropped

    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(work, range(rounds)))
    for n, (kept, dropped) in enumerate(done):
        by_words = [h.memory.id for h in memory.recall(f"tomatoes {n}", SCOPE, k=20, semantic=False)]
        by_meaning = [h.memory.id for h in memory.recall(f"tomatoes {n}", SCOPE, k=20, lexical=False)]
        assert kept in by_words and kept in by_meaning
        gone = [h.memory.id for h in memory.recall(f"cucumbers {n}", SCOPE, k=40)]
        assert dropped not in gone
    actions = [e.action for e in memory.audit.events(limit=1000)]  # type: ignore[union-attr]
    assert actions.count("memory.remembered") == 2 * rounds and actions.count("memory.forgotten") == rounds
