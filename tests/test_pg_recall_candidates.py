"""Recall's two searches in one statement on PostgreSQL (``memory_recall_candidates``): the lists are the
ones ``keyword_search`` and ``vector_search`` give — same memories, same chunks, same order, same
scores — for a scope under the HNSW graph, small scopes compared exactly, both at once, forgotten rows,
a model without vectors, and one signal alone."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from shitsuji.bench._statements import counting
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._slots import Match
from shitsuji.memory._text import query_terms
from shitsuji.store import open_database

from .conftest import Clock

WORDS = [
    "tea",
    "coffee",
    "garden",
    "key",
    "dentist",
    "friday",
    "train",
    "cake",
    "紅茶",
    "歯医者",
    "鍵",
    "金曜日",
]


@pytest.fixture
def pg(pg_url: str, clock: Clock) -> Iterator[tuple[MemoryEngine, PostgresMemoryStore]]:
    db = open_database(pg_url, MEMORY_SCHEMA)
    store = PostgresMemoryStore(db, graph_min=300)  # "big" joins the graph, the "s/…" scopes stay exact
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    rng = random.Random(25)
    items = []
    for i in range(900):
        words = rng.choices(WORDS, k=rng.randint(2, 7))
        text = " ".join(words) if rng.random() < 0.6 else "の".join(words) + "。"
        if i % 40 == 0:
            text = " ".join([text] * 60)  # several chunks
        items.append(NewMemory(content=text, scope="big" if i < 500 else f"s/{i % 4}", id=f"m{i:04d}"))
    engine.add_many(items)
    engine.index_pending()
    for memory_id in ("m0003", "m0501", "m0602"):
        engine.forget(memory_id)
    yield engine, store
    db.close()


def _pairs(matches: list[Match]) -> list[tuple[str, int]]:
    return [(m.memory_id, m.chunk) for m in matches]


def test_one_statement_gives_the_lists_of_the_two_searches(
    pg: tuple[MemoryEngine, PostgresMemoryStore],
) -> None:
    engine, store = pg
    model = engine.embedder.model_id
    assert store._db.execute("SELECT scope FROM memory_graph_scopes").fetchall() == [("big",)]  # type: ignore[attr-defined]
    for text in ("tea garden", "紅茶と鍵", "dentist on friday", "cake", "歯医者 train key"):
        vector = engine.embedder.embed_query(text)
        terms = query_terms(text)
        for scopes in (["big"], ["s/1", "s/2"], ["big", "s/1", "s/3"]):
            for limit in (5, 60):
                both = store.candidates(terms, model, vector, scopes, limit)
                keyword = store.keyword_search(terms, scopes, limit)
                vector_hits = store.vector_search(model, vector, scopes, limit)
                assert keyword and vector_hits
                assert _pairs(both["keyword"]) == _pairs(keyword), (text, scopes)
                assert _pairs(both["vector"]) == _pairs(vector_hits), (text, scopes)
                assert [m.score for m in both["keyword"]] == pytest.approx(
                    [m.score for m in keyword], rel=1e-12
                )
                assert [m.score for m in both["vector"]] == pytest.approx(
                    [m.score for m in vector_hits], rel=1e-12
                )
                gone = {"m0003", "m0501", "m0602"}
                assert not gone & {m.memory_id for m in both["keyword"] + both["vector"]}


def test_one_signal_alone_and_a_model_without_vectors(pg: tuple[MemoryEngine, PostgresMemoryStore]) -> None:
    engine, store = pg
    model = engine.embedder.model_id
    vector = engine.embedder.embed_query("tea")
    terms = query_terms("tea")
    assert set(store.candidates(terms, model, None, ["big"], 10)) == {"keyword"}
    only_vectors = store.candidates(None, model, vector, ["big"], 10)
    assert set(only_vectors) == {"vector"}
    assert _pairs(only_vectors["vector"]) == _pairs(store.vector_search(model, vector, ["big"], 10))
    # a model with no vectors here, or a vector of another size: no vector candidates, words still found
    for other, query in (("other-model", vector), (model, np.ones(7, dtype=np.float32))):
        found = store.candidates(terms, other, query, ["big"], 10)
        assert found["vector"] == []
        assert _pairs(found["keyword"]) == _pairs(store.keyword_search(terms, ["big"], 10))
    assert store.candidates([], model, None, ["big"], 10) == {"keyword": []}
    assert store.candidates(terms, model, vector, [], 10) == {"keyword": [], "vector": []}


def test_a_recall_sends_its_two_searches_as_one_statement(pg_url: str) -> None:
    """Counted on the wire (``bench._statements``): the searches of a recall in a graph scope were eight
    statements (keyword; exact vectors, graph scopes, BEGIN, settings, graph walk, COMMIT, ids)."""
    with counting(pg_url) as (proxied, seen):
        db = open_database(proxied, MEMORY_SCHEMA)
        engine = MemoryEngine(PostgresMemoryStore(db, graph_min=300), HashEmbedder())
        engine.add_many(
            [NewMemory(content=f"tea garden note {i} topic {i % 7}", scope="big") for i in range(400)]
        )
        engine.index_pending()
        engine.recall("tea topic 3", "big", k=5)  # the model's vector table is known from here on
        seen.mark()
        hits = engine.recall("garden topic 5", "big", k=5)
        sent = [s.sql for s in seen.snapshot()]
        db.close()
    assert hits
    assert sum("memory_recall_candidates" in sql for sql in sent) == 1
    # the rest is reading the hits' rows and vectors (chunk 0 of the vector table, ``_pg_rows``):
    # nothing searches — ranks by words or by distance — apart from that one statement
    searching = ("memory_bm25", "<#>", "<=>", "<->")
    assert not [sql for sql in sent if any(s in sql for s in searching)], sent
    assert len(sent) <= 3, sent


def test_a_model_with_no_vectors_yet_is_looked_up_inside_the_recall_statement(pg_url: str) -> None:
    """While the database holds no vector of the recall's model (a new household; ``bench scale``'s chat),
    each recall read ``memory_vector_models`` in a statement of its own before its searches: one round
    trip of eight in a turn. The model is now asked for inside the candidates statement, the first
    vector another process writes is found by the next recall, and from then on the model is kept."""
    with counting(pg_url) as (proxied, seen):
        db = open_database(proxied, MEMORY_SCHEMA)
        engine = MemoryEngine(PostgresMemoryStore(db), HashEmbedder())
        engine.add_many([NewMemory(content=f"tea garden note {i}", scope="s", id=f"n{i}") for i in range(3)])
        seen.mark()
        for _ in range(2):  # not kept while there is none: asked again, inside the one statement
            hits = engine.recall("tea garden", "s", k=3)
            assert {h.memory.id for h in hits} == {"n0", "n1", "n2"}  # by their words
        sent = [s.sql for s in seen.snapshot()]
        alone = [
            sql for sql in sent if "memory_vector_models" in sql and "memory_recall_candidates" not in sql
        ]
        assert not alone, sent
        assert sum("memory_recall_candidates" in sql for sql in sent) == 2, sent

        other = open_database(pg_url, MEMORY_SCHEMA)  # another process's store writes the first vectors
        writer = MemoryEngine(PostgresMemoryStore(other), HashEmbedder())
        writer.index_pending()
        assert other.execute("SELECT count(*) FROM memory_vector_models").fetchone()[0] == 1
        model = engine.embedder.model_id
        vector = engine.embedder.embed_query("tea garden")
        store = engine.store
        found = store.candidates(query_terms("tea garden"), model, vector, ["s"], 3)
        assert {m.memory_id for m in found["vector"]} == {"n0", "n1", "n2"}
        seen.mark()
        assert engine.recall("tea garden", "s", k=3)
        sent = [s.sql for s in seen.snapshot()]
        assert not [sql for sql in sent if "memory_vector_models" in sql], sent  # the model is kept now
        db.close()
