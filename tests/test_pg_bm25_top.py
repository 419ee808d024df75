"""Keyword top-k from the best chunks on PostgreSQL (``_pg_bm25_top``): the lists are the ones ranking every
chunk scored gives — same memories, chunks, order and scores — on data made to be hard for it: very common
words (flat scores), exact ties (the same terms stored again: the order rests on the rowid), words repeated
in a chunk, memories of several chunks, two scopes of one lineage, forgotten rows; and memories of so many
matching chunks that the kept head holds fewer than k of them (then every chunk is ranked)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from shitsuji.bench.scale_memory import _rows
from shitsuji.memory._keywords import K1, B
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import Database, open_database

COMMON = ["tea", "coffee", "garden", "key"]
RARE = [f"w{i}" for i in range(40)] + ["紅茶", "歯医", "医者", "金曜"]
SCOPES = {"h": 1800, "h/a": 900}
START = datetime(2026, 1, 1, tzinfo=UTC)


def _chunk(rng: random.Random) -> str:
    """A chunk's terms: mostly common words, a rare one now and then, words repeated."""
    words = rng.choices(
        COMMON + RARE, weights=[8, 4, 2, 1] + [0.05] * len(RARE), k=rng.choice([1, 2, 3, 5, 8, 20])
    )
    if rng.random() < 0.2:
        words += [words[0]] * rng.randint(1, 3)
    return " ".join(words)


def _stored(rng: random.Random) -> str:
    return "\n".join(_chunk(rng) for _ in range(1 if rng.random() < 0.85 else rng.randint(2, 4)))


@pytest.fixture(scope="module")
def db(pg_server: object) -> Iterator[Database]:
    """2,700 memories in two scopes (5 % of them the same chunk again, 4 % forgotten), and a scope
    "crowd" whose 30 memories hold "tea" in each of their 12 chunks."""
    with pg_server.database() as url:  # type: ignore[attr-defined]
        database = open_database(url, MEMORY_SCHEMA)
        store = PostgresMemoryStore(database)
        rng = random.Random(2026)
        tied = _stored(rng)
        stored = [tied if rng.random() < 0.05 else _stored(rng) for _ in range(sum(SCOPES.values()))]
        stored += ["\n".join(["tea garden"] * 12)] * 30
        scopes = [scope for scope, count in SCOPES.items() for _ in range(count)] + ["crowd"] * 30
        made = _rows([t.replace("\n", " ") for t in stored], 0, scopes, START)  # scopes dealt in turn
        rows = [(memory, terms) for (memory, _), terms in zip(made, stored, strict=True)]
        store.insert_many(rows)
        for memory, _ in rows:
            if rng.random() < 0.04:
                store.set_deleted(memory.id, START)
        yield database
        database.close()


QUERIES = [
    ["tea"],
    ["tea", "coffee"],
    ["tea", "coffee", "garden"],
    ["coffee", "garden", "key"],
    ["tea", "w3"],
    ["garden", "w7", "w11"],
    ["紅茶", "tea", "coffee"],
    ["key", "金曜", "医者", "coffee"],
    ["w1"],
    ["nowhere"],
]


@pytest.mark.parametrize("scopes", [["h"], ["h/a", "h"], ["h/a"]])
def test_the_head_gives_the_lists_of_every_chunk_ranked(db: Database, scopes: list[str]) -> None:
    for terms in QUERIES:
        for k in (1, 10, 60, 200):
            scan = db.execute(
                "SELECT * FROM memory_bm25_scan(?, ?, ?, ?, ?)", (scopes, terms, k, K1, B)
            ).fetchall()
            top = db.execute("SELECT * FROM memory_bm25(?, ?, ?, ?, ?)", (scopes, terms, k, K1, B)).fetchall()
            assert [(r[0], r[1]) for r in top] == [(r[0], r[1]) for r in scan], (scopes, terms, k)
            assert [r[2] for r in top] == pytest.approx([r[2] for r in scan], rel=1e-12)
            assert scan or terms == ["nowhere"]


def test_memories_of_many_chunks_that_crowd_the_head_are_ranked_in_full(db: Database) -> None:
    # 30 memories of 12 matching chunks each: the head of 64 chunks holds 6 of them, fewer than k = 10
    top = db.execute("SELECT * FROM memory_bm25(?, ?, ?, ?, ?)", (["crowd"], ["tea"], 10, K1, B)).fetchall()
    scan = db.execute(
        "SELECT * FROM memory_bm25_scan(?, ?, ?, ?, ?)", (["crowd"], ["tea"], 10, K1, B)
    ).fetchall()
    assert len(top) == 10
    assert top == scan


def test_a_keyword_search_through_the_store_ranks_as_the_scan(db: Database) -> None:
    store = PostgresMemoryStore(db)
    found = store.keyword_search(["tea", "coffee", "w3"], ["h/a", "h"], 60)
    ids = dict(db.execute("SELECT rowid, id FROM memories").fetchall())
    scan = db.execute(
        "SELECT * FROM memory_bm25_scan(?, ?, ?, ?, ?)", (["h/a", "h"], ["tea", "coffee", "w3"], 60, K1, B)
    ).fetchall()
    assert [(m.memory_id, m.chunk) for m in found] == [(ids[r[0]], r[1]) for r in scan]
