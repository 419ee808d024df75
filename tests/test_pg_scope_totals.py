"""Writers of one scope on PostgreSQL no longer queue on its totals' row (issue 25, ``_pg_scope_totals``).

Two connections each write a memory into the same scope with words of their own, the first one's
transaction still open: the second commits without waiting (on main, both added to the scope's one
``memory_scope_stats`` row, and the second waited for the first's commit). The totals BM25 reads
stay exact through inserts and forgets from both; ``tests/test_pg_keywords.py`` checks them
against the Python scorer after every kind of write.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from shitsuji.memory._pg_scope_totals import SLOTS
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

SCOPE = "household/futari"
INSERT = (
    "INSERT INTO memories (id, scope, content, category, importance, source, created_at, updated_at, "
    "content_hash, terms) VALUES (%s, %s, %s, 'misc', 0.5, 'imported', '2026-01-01T00:00:00+00:00', "
    "'2026-01-01T00:00:00+00:00', %s, %s)"
)


def _slot(conn: psycopg.Connection) -> int:
    return int(conn.execute("SELECT pg_backend_pid()").fetchone()[0]) % SLOTS  # type: ignore[index]


@pytest.fixture
def writers(pg_url: str) -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    """Two connections whose writes land in different slots (the slot is the backend's)."""
    open_database(pg_url, MEMORY_SCHEMA).close()
    first = psycopg.connect(pg_url)
    spare = []
    second = psycopg.connect(pg_url)
    while _slot(second) == _slot(first):  # a fresh backend has another pid
        spare.append(second)
        second = psycopg.connect(pg_url)
    for conn in spare:
        conn.close()
    second.execute("SET lock_timeout = '5s'")
    second.commit()
    yield first, second
    first.close()
    second.close()


def _totals(pg_url: str) -> tuple[int, int]:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute(
            "SELECT chunks, terms FROM memory_scope_stats WHERE scope = %s", (SCOPE,)
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_two_writers_of_one_scope_commit_without_waiting_for_each_other(
    pg_url: str, writers: tuple[psycopg.Connection, psycopg.Connection]
) -> None:
    first, second = writers
    first.execute(INSERT, ("a", SCOPE, "紅茶が好き", "ha", "紅茶 茶が 好き\n庭"))  # two chunks, four terms
    # first's transaction is still open; second writes other words into the same scope
    second.execute(INSERT, ("b", SCOPE, "coffee beans", "hb", "coffe bean"))
    second.commit()  # main: LockNotAvailable after 5 s, waiting on the scope's one row
    first.commit()
    assert _totals(pg_url) == (3, 6)
    # a forget through either connection subtracts in its own slot: the sum is still the live rows'
    second.execute("UPDATE memories SET deleted_at = '2026-01-02' WHERE id = 'a'")
    second.commit()
    assert _totals(pg_url) == (1, 2)
    first.execute("DELETE FROM memories WHERE id = 'b'")
    first.commit()
    assert _totals(pg_url) == (0, 0)
