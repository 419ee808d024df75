"""BM25 inside PostgreSQL: the SQL scores equal the Python scorer's on a Japanese and English corpus,
after every kind of write (insert, forget, restore, edit, supersede, rewritten terms, purge, reset),
and a database from before the postings gets them backfilled by its migration."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import timedelta

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._engine import index_terms
from shitsuji.memory._keywords import bm25
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._slots import Match
from shitsuji.memory._text import query_terms
from shitsuji.store import Database, Schema, open_database

from .conftest import Clock

HOME = "household/futari"
WIFE = "household/futari/user/wife"
HUSBAND = "household/futari/user/husband"
SCOPES = (HOME, WIFE, HUSBAND, "household/other")
ENGLISH = [
    "tea",
    "coffee",
    "garden",
    "key",
    "flower",
    "pot",
    "peanut",
    "allergy",
    "dentist",
    "friday",
    "train",
    "station",
    "school",
    "painting",
    "paints",
    "painted",
    "bicycle",
    "lock",
    "code",
    "birthday",
    "cake",
    "milk",
    "darjeeling",
    "car",
    "inspection",
]
JAPANESE = [
    "紅茶",
    "珈琲",
    "歯医者",
    "予約",
    "金曜日",
    "ゴミ",
    "月曜日",
    "木曜日",
    "沖縄",
    "猫",
    "電車",
    "駅",
    "学校",
    "誕生日",
    "ケーキ",
    "牛乳",
    "車",
    "点検",
    "鍵",
    "植木鉢",
]
QUERIES = [
    "紅茶",
    "歯医者の予約",
    "金曜日",
    "猫",
    "ゴミの日は月曜日",
    "tea",
    "peanut allergy",
    "painting",
    "spare key under the flower pot",
    "birthday cake 誕生日",
    "no such word",
]


def _text(rng: random.Random) -> str:
    """A short fact in either language; one in ten is long enough to be cut into chunks."""
    if rng.random() < 0.5:
        words = rng.choices(ENGLISH, k=rng.randint(3, 10))
        text = " ".join(words) + "."
    else:
        text = (
            "".join(w + rng.choice("はがをにで") for w in rng.choices(JAPANESE, k=rng.randint(2, 6))) + "。"
        )
    if rng.random() < 0.1:
        text = " ".join([text] * 40)  # > 600 characters: several chunks
    return text


def _reference(db: Database, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
    """What the Python scorer gives over the live rows of ``scopes`` (the scoring main did)."""
    words = list(dict.fromkeys(terms))
    rows = db.execute(
        "SELECT id, terms FROM memories WHERE scope = ANY(?) AND deleted_at IS NULL ORDER BY rowid",
        (list(scopes),),
    ).fetchall()
    docs = sum(stored.count("\n") + 1 for _, stored in rows)
    length = sum(len(stored.split()) for _, stored in rows)
    holding = [(i, s) for i, s in rows if set(s.split()) & set(words)]
    return bm25(holding, words, docs, length, limit)


def _assert_same(store: PostgresMemoryStore, db: Database) -> None:
    for text in QUERIES:
        terms = query_terms(text)
        for scopes in ([WIFE, HOME], [HUSBAND], list(SCOPES)):
            mine = store.keyword_search(terms, scopes, 20)
            theirs = _reference(db, terms, scopes, 20)
            assert [(m.memory_id, m.chunk) for m in mine] == [(m.memory_id, m.chunk) for m in theirs], (
                text,
                scopes,
            )
            assert [m.score for m in mine] == pytest.approx([m.score for m in theirs], rel=1e-9)
    _assert_statistics_derived(db)


def _assert_statistics_derived(db: Database) -> None:
    """The kept tables equal what the live rows' stored terms give, counted here in Python."""
    live = db.execute("SELECT rowid, scope, terms FROM memories WHERE deleted_at IS NULL").fetchall()
    expected: Counter[tuple[str, str, int, int, int, int]] = Counter()
    held: Counter[tuple[str, str]] = Counter()
    totals: dict[str, list[int]] = {}
    for rowid, scope, stored in live:
        lines = stored.split("\n")
        total = totals.setdefault(scope, [0, 0])
        total[0] += len(lines)
        for chunk, line in enumerate(lines):
            words = line.split()
            total[1] += len(words)
            for term, tf in Counter(words).items():
                expected[(scope, term, int(rowid), chunk, tf, len(words))] += 1
                held[(scope, term)] += 1
    kept = db.execute("SELECT scope, term, memory_rowid, chunk, tf, len FROM memory_postings").fetchall()
    assert Counter(tuple(r) for r in kept) == expected
    stats = db.execute(  # a pair's count is the sum of its rows (``_pg_term_deltas``)
        "SELECT scope, term, sum(chunks) FROM memory_term_stats GROUP BY scope, term HAVING sum(chunks) <> 0"
    ).fetchall()
    assert {(scope, term): int(n) for scope, term, n in stats} == dict(held)
    scopes = db.execute("SELECT scope, chunks, terms FROM memory_scope_stats WHERE (chunks, terms) <> (0, 0)")
    assert {scope: [int(c), int(t)] for scope, c, t in scopes.fetchall()} == totals


@pytest.fixture
def pg(pg_url: str, clock: Clock) -> Iterator[tuple[MemoryEngine, Database]]:
    db = open_database(pg_url, MEMORY_SCHEMA)
    engine = MemoryEngine(PostgresMemoryStore(db), HashEmbedder(), clock=clock)
    yield engine, db
    db.close()


def test_sql_bm25_equals_the_python_scorer_after_every_kind_of_write(
    pg: tuple[MemoryEngine, Database], clock: Clock
) -> None:
    engine, db = pg
    store = engine.store
    assert isinstance(store, PostgresMemoryStore)
    rng = random.Random(25)
    items = [NewMemory(content=_text(rng), scope=rng.choice(SCOPES), id=f"m{i:04d}") for i in range(400)]
    engine.add_many(items)
    engine.index_pending()
    _assert_same(store, db)
    # forget, restore, edit (a new row; the old one forgotten), supersede (valid_until), rewritten terms
    ids = [m.id for m in engine.list_memories(None)]
    for memory_id in ids[:30]:
        engine.forget(memory_id)
    for memory_id in ids[:10]:
        engine.restore(memory_id)
    for memory_id in ids[40:50]:
        engine.edit(memory_id, content="紅茶と tea の話、 painting of a cat 猫")
    clock.advance(days=2)
    engine.remember("妻は紅茶ではなく珈琲を飲むようになった", WIFE)
    store.set_valid_until(ids[60], clock.now + timedelta(days=1), {"superseded_by": "x"})
    store.rewrite_terms([(memory_id, index_terms("tea tea tea 猫")) for memory_id in ids[70:80]])
    db.execute("UPDATE memories SET scope = ? WHERE id = ?", (HUSBAND, ids[90]))  # a row moved
    _assert_same(store, db)
    assert engine.purge() == 30 - 10 + 10
    _assert_same(store, db)
    store.reset_index()  # every row's terms emptied: nothing is found, the totals still count chunks
    assert store.keyword_search(query_terms("tea"), list(SCOPES), 10) == []
    _assert_statistics_derived(db)


def test_a_database_from_before_the_postings_is_backfilled_by_its_migration(pg_url: str) -> None:
    before = Schema("memory", tuple(m for m in MEMORY_SCHEMA.migrations if m.name < "0012"))
    old = open_database(pg_url, before)
    rng = random.Random(7)
    with old.write() as tx:
        for i in range(200):
            text = _text(rng)
            tx.execute(
                "INSERT INTO memories (id, scope, content, category, importance, source, created_at, "
                "updated_at, content_hash, terms, deleted_at) VALUES (?, ?, ?, 'misc', 0.5, 'imported', "
                "'2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', ?, ?, ?)",
                (
                    f"o{i}",
                    rng.choice(SCOPES),
                    text,
                    f"h{i}",
                    index_terms(text),
                    "2026-01-02" if i % 9 == 0 else None,
                ),
            )
    assert old.execute("SELECT count(*) FROM memories WHERE keywords IS NOT NULL").fetchone()[0] == 200
    old.close()
    db = open_database(pg_url, MEMORY_SCHEMA)
    columns = {
        r[0]
        for r in db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'memories'"
        ).fetchall()
    }
    assert "keywords" not in columns
    assert db.execute("SELECT count(DISTINCT memory_rowid) FROM memory_postings").fetchone()[0] == 200 - 23
    _assert_same(PostgresMemoryStore(db), db)
    db.close()


def test_writers_of_the_same_words_at_once_keep_the_counts_right(pg_url: str) -> None:
    """Four threads write and forget facts sharing their words in two scopes at the same time: no
    deadlock, no lost count (the statistics' rows are locked in one order by every write)."""
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db)
    engine = MemoryEngine(store, HashEmbedder())
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        rng = random.Random(worker)
        try:
            for round_ in range(15):
                items = [
                    NewMemory(
                        content=f"{_text(rng)} #{worker}-{round_}-{i}",
                        scope=(HOME, WIFE)[i % 2],
                        id=f"w{worker}-{round_}-{i}",
                    )
                    for i in range(8)
                ]
                engine.add_many(items)
                engine.forget(items[rng.randrange(8)].id)
        except BaseException as exc:  # a deadlock would surface here
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors and not any(t.is_alive() for t in threads)
    _assert_statistics_derived(db)
    _assert_same(store, db)
    db.close()
