"""Term statistics as signed rows (``_pg_term_deltas``) on a real PostgreSQL: after bulk imports, updates,
forgets and purges — and a bulk import beside small writers of the same words — every pair's summed count
equals a recount from the live rows, and BM25 equals the Python scorer's."""

from __future__ import annotations

import io
import json
import random
import threading
from collections.abc import Iterator

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._engine import index_terms
from shitsuji.memory._pg_term_deltas import FOLD_ROWS, FOLD_SCOPES_SQL
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._text import query_terms
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database, open_database

from .conftest import Clock
from .test_pg_keywords import HOME, QUERIES, SCOPES, WIFE, _assert_statistics_derived, _reference, _text


@pytest.fixture
def pg(pg_url: str, clock: Clock) -> Iterator[tuple[MemoryEngine, Database]]:
    db = open_database(pg_url, MEMORY_SCHEMA)
    # a bulk load's end folds every pair of several rows here (by default only those of more than FOLD_ROWS)
    yield MemoryEngine(PostgresMemoryStore(db, fold_rows=1), HashEmbedder(), clock=clock), db
    db.close()


def _lines(rng: random.Random, n: int, tag: str, scopes: tuple[str, ...] = SCOPES) -> io.StringIO:
    rows = [{"content": f"{_text(rng)} {tag}{i}", "scope": rng.choice(scopes)} for i in range(n)]
    return io.StringIO("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))


def _assert_same(store: PostgresMemoryStore, db: Database) -> None:
    """The counts equal a recount (``_assert_statistics_derived``) and BM25 the Python scorer's: the same
    memories in the same order, the same scores. (A memory's best chunk may differ among chunks of one
    repeated text: their scores are equal but for the order in which floats were summed.)"""
    _assert_statistics_derived(db)
    for text in QUERIES:
        terms = query_terms(text)
        for scopes in ([WIFE, HOME], [HOME], list(SCOPES)):
            mine, theirs = store.keyword_search(terms, scopes, 20), _reference(db, terms, scopes, 20)
            assert [m.memory_id for m in mine] == [m.memory_id for m in theirs], (text, scopes)
            assert [m.score for m in mine] == pytest.approx([m.score for m in theirs], rel=1e-9)


def small_writes(
    engine: MemoryEngine, worker: int, done: threading.Event, errors: list[BaseException]
) -> None:
    """A small writer until ``done``: remembers facts of the shared words in both scopes, forgets every third
    (its folds meet a bulk load's or the upkeep's on the same rows); what it raises is kept in ``errors``."""
    rng = random.Random(worker)
    try:
        i = 0
        while not done.is_set():
            kept = engine.remember(f"{_text(rng)} #{worker}-{i}", (HOME, WIFE)[i % 2])
            if i % 3 == 0 and not kept.duplicate:
                engine.forget(kept.memory.id)
            i += 1
    except BaseException as exc:  # a deadlock would surface here
        errors.append(exc)


def _rows_per_pair(db: Database) -> int:
    return int(
        db.execute(
            "SELECT max(n) FROM (SELECT count(*) n FROM memory_term_stats GROUP BY scope, term) x"
        ).fetchone()[0]
    )


def test_the_counts_equal_a_recount_after_imports_updates_forgets_and_purges(
    pg: tuple[MemoryEngine, Database],
) -> None:
    engine, db = pg
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    rng = random.Random(19)
    import_file(engine, _lines(rng, 1300, "a"))  # three batches (500 a statement): counts added, not upserted
    import_file(engine, _lines(rng, 600, "b"))
    assert _rows_per_pair(db) == 1  # each import's end folded the rows its batches added (b6d27b8: 5)
    _assert_same(store, db)  # the sums: a recount from the live rows; BM25 as the Python scorer's
    ids = [m.id for m in engine.list_memories(None)]
    db.execute("UPDATE memories SET scope = ? WHERE rowid % 7 = 0 AND scope <> ?", (WIFE, WIFE))
    assert _rows_per_pair(db) > 1  # a large statement outside a bulk load adds rows a pair, not folded
    _assert_same(store, db)
    # a small write folds the rows of the pairs it touches into one
    scope, term = db.execute(
        "SELECT scope, term FROM memory_term_stats GROUP BY scope, term ORDER BY count(*) DESC, 1, 2 LIMIT 1"
    ).fetchone()
    (one,) = db.execute(
        "SELECT id FROM memories WHERE scope = ? AND deleted_at IS NULL ORDER BY rowid LIMIT 1", (scope,)
    ).fetchone()
    store.rewrite_terms([(one, f"{term} {term}")])  # one row's terms: the pair touched by a small statement
    assert db.execute(
        "SELECT count(*) FROM memory_term_stats WHERE scope = ? AND term = ?", (scope, term)
    ).fetchone() == (1,)
    for memory_id in ids[:20]:  # small statements: a forget, a restore, an edit each
        engine.forget(memory_id)
    for memory_id in ids[:5]:
        engine.restore(memory_id)
    for memory_id in ids[30:35]:
        engine.edit(memory_id, content="紅茶と tea の話、 painting of a cat 猫")
    # large statements: terms rewritten, rows forgotten and moved, 100s at once (counts added as rows)
    store.rewrite_terms([(memory_id, index_terms("tea tea 猫 coffee")) for memory_id in ids[100:300]])
    db.execute("UPDATE memories SET deleted_at = '2026-03-01T00:00:00+00:00' WHERE rowid % 11 = 0")
    db.execute("UPDATE memories SET scope = ? WHERE rowid % 13 = 0 AND deleted_at IS NULL", (HOME,))
    _assert_same(store, db)
    assert engine.purge() > 100
    _assert_same(store, db)
    import_file(engine, _lines(rng, 700, "c"))  # again after the purge
    _assert_same(store, db)


def test_a_bulk_import_beside_small_writers_of_the_same_words_keeps_the_counts_right(
    pg: tuple[MemoryEngine, Database], pg_url: str
) -> None:
    """An import of 1,500 (three large statements, rows added without locks) while two threads
    remember and forget facts of the same words in the same scopes (their rows folded, locked in key
    order): no deadlock, no count lost."""
    engine, db = pg
    errors: list[BaseException] = []

    def small(worker: int) -> None:
        rng = random.Random(worker)
        try:
            for i in range(40):
                done = engine.remember(f"{_text(rng)} #{worker}-{i}", (HOME, WIFE)[i % 2])
                if i % 3 == 0 and not done.duplicate:
                    engine.forget(done.memory.id)
        except BaseException as exc:  # a deadlock would surface here
            errors.append(exc)

    def bulk() -> None:
        try:
            import_file(engine, _lines(random.Random(5), 1500, "bulk", (HOME, WIFE)))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=bulk), *(threading.Thread(target=small, args=(w,)) for w in (1, 2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not errors and not any(t.is_alive() for t in threads), errors
    _assert_statistics_derived(db)
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    _assert_same(store, db)


def test_imports_ending_beside_small_writers_fold_their_rows_and_lose_no_count(
    pg: tuple[MemoryEngine, Database],
) -> None:
    """Four imports (two large statements each: a pair's rows added, one a batch) while two threads
    remember and forget facts of the same words in the same scopes until the last import is done: each
    import's end folds its scopes' rows beside the writers' own folds (a row one holds is skipped, not
    waited on) — no deadlock, no count lost, and about one row a pair left."""
    engine, db = pg
    done = threading.Event()
    errors: list[BaseException] = []

    writers = [threading.Thread(target=small_writes, args=(engine, w, done, errors)) for w in (1, 2)]
    for thread in writers:
        thread.start()
    try:
        for k in range(4):
            import_file(engine, _lines(random.Random(k), 700, f"i{k}-", (HOME, WIFE)))
    finally:
        done.set()
        for thread in writers:
            thread.join(timeout=600)
    assert not errors and not any(t.is_alive() for t in writers), errors
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    _assert_same(store, db)
    rows, pairs = db.execute(
        "SELECT count(*), count(DISTINCT (scope, term)) FROM memory_term_stats"
    ).fetchone()
    assert rows < 1.1 * pairs, (
        rows,
        pairs,
    )  # b6d27b8: a row a pair per batch that touched it (4,188 rows, 1,947 pairs)


def test_a_bulk_load_of_many_batches_folds_the_pairs_of_more_rows_than_the_bound(
    pg_url: str, clock: Clock
) -> None:
    """By default a bulk load's end folds the pairs held in more than ``FOLD_ROWS`` rows (a search sums
    few rows a pair) and leaves the rest: FOLD_ROWS + 2 statements of 100 lines into two scopes."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    try:
        store = PostgresMemoryStore(db)
        engine = MemoryEngine(store, HashEmbedder(), clock=clock)
        rng = random.Random(3)
        with store.bulk():
            lines = [
                NewMemory(content=f"{_text(rng)} n{i}", scope=(HOME, WIFE)[i % 2])
                for i in range((FOLD_ROWS + 2) * 100)
            ]
            engine.add_many(lines, batch=100)
        assert 1 < _rows_per_pair(db) <= FOLD_ROWS  # b6d27b8: FOLD_ROWS + 2 (a row a statement)
        _assert_same(store, db)
    finally:
        db.close()


def test_a_small_writes_fold_locks_a_pairs_rows_in_one_order(pg: tuple[MemoryEngine, Database]) -> None:
    """Two small writes of the same words fold the same pairs; each locks the rows it sees in order.
    Ordered by (scope, term) alone, a pair's several rows were left in whatever order each sort gave
    them — a deadlock between two writers, seen once in the suite (``0023_fold_lock_order``). The race
    cannot be forced from here, so this reads the installed function: the locks' order ends with the
    row's place, and a database migrated from before has it too (every migration is applied in order)."""
    _, db = pg
    body = db.execute("SELECT pg_get_functiondef('memory_keyword_apply'::regproc)").fetchone()[0]
    locking = [line.strip() for line in body.splitlines() if "FOR UPDATE" in line and "SKIP" not in line]
    assert locking == ["ORDER BY s.scope, s.term, s.ctid FOR UPDATE"]
    # and the writers of the same words, in threads, still fold to one row a pair, no count lost
    engine, _ = pg
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(15):
                kept = engine.remember(f"worker {n} keeps the tomato note {i}", HOME).memory.id
                dropped = engine.remember(f"worker {n} drops the cucumber note {i}", HOME).memory.id
                engine.forget(dropped)
                assert kept
        except BaseException as exc:  # reported below, with the thread's own traceback
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    _assert_same(engine.store, db)  # type: ignore[arg-type]


def test_a_bulk_loads_fold_reads_the_table_once_with_the_statistics_the_load_left(
    pg_url: str, clock: Clock
) -> None:
    """The load's-end fold (``FOLD_SCOPES_SQL``) on a table analyzed before a load of 12,000 rows into a
    scope it did not hold (the statistics right after a bulk load, before autovacuum's analyze): no plan,
    generic (the pool's ``plan_cache_mode``) or custom, joins the pairs found back to the table by a nested
    loop — on 80f9406 the custom plan did (the pairs' aggregate run again for every row of the scope: sc26's
    fold of that form took 333 s for 9,000 rows); and the fold folds every pair, no count lost."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    try:
        store = PostgresMemoryStore(db)
        with store.write() as tx:
            tx.execute(
                "INSERT INTO memory_term_stats (scope, term, chunks) SELECT 'small', 'u' || i, 1 "
                "FROM generate_series(1, 50) i"
            )
        db.execute("ANALYZE memory_term_stats")
        with store.write() as tx:  # 300 pairs of 40 rows in one scope: a load of 40 statements
            tx.execute(
                "INSERT INTO memory_term_stats (scope, term, chunks) SELECT '大きな', 't' || (i % 300), 1 "
                "FROM generate_series(1, 12000) i"
            )
        generic = FOLD_SCOPES_SQL.replace("%(scopes)s", "$1").replace("%(rows)s", "$2")
        with store.write() as tx:
            tx.conn.execute(f"PREPARE fold (text[], int) AS {generic}")
            for mode in ("force_generic_plan", "force_custom_plan"):
                tx.conn.execute(f"SET LOCAL plan_cache_mode = {mode}")
                explained = tx.conn.execute(f"EXPLAIN EXECUTE fold ('{{大きな}}', {FOLD_ROWS})")
                plan = "\n".join(str(r[0]) for r in explained.fetchall())
                assert "Nested Loop" not in plan, (mode, plan)
            tx.conn.execute("DEALLOCATE fold")
            tx.conn.execute(FOLD_SCOPES_SQL, {"scopes": ["大きな"], "rows": FOLD_ROWS})
        assert db.execute(
            "SELECT count(*), min(chunks), max(chunks) FROM memory_term_stats WHERE scope = '大きな'"
        ).fetchone() == (300, 40, 40)
    finally:
        db.close()
