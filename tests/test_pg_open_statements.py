"""What opening the PostgreSQL memory store sends (issue 25): one statement asks both graph questions — a
pending graph, a build's ``parallel_workers`` left over — where two were sent one after the other, and
nothing is started or reset by the opening itself (``memory._pg_graph_builds``)."""

from __future__ import annotations

from shitsuji.bench._statements import counting
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database


def test_opening_asks_the_graph_questions_in_one_statement_and_starts_nothing(pg_url: str) -> None:
    with counting(pg_url) as (url, statements):
        db = open_database(url, MEMORY_SCHEMA)
        PostgresMemoryStore(db).close()  # the tables made, the first vector table not yet
        statements.mark()
        store = PostgresMemoryStore(db)
        sent = [s.sql for s in statements.snapshot()]
        db.close()
    graph = [sql for sql in sent if "memory_vector_models" in sql]
    assert len(graph) == 1, sent  # on 0279fba: leftover_settings, then broken_graphs
    assert "indisvalid" in graph[0] and "parallel_workers" in graph[0]
    assert len(sent) == 4, sent  # with fill_derived's three (the identity, the mark, the top seq)
    assert store.wait_for_graphs(0)  # no build thread started
