"""``Database.write_one``: a write of one statement, a transaction of its own (issue 25).

On PostgreSQL it is sent alone in autocommit — one round trip where ``write()`` takes three (BEGIN,
the statement, COMMIT); the server runs a lone statement atomically. Counted on the wire by the
proxy of ``shitsuji.bench._statements``. Inside an open ``write()``, or with work attached to the next
write, it must join a transaction as ``write()`` does: each checked on both engines.
"""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from shitsuji.bench._statements import counting
from shitsuji.store import database, with_next_write

TABLE = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"


def _bodies(target: str) -> list[str]:
    return [r[0] for r in database(target).execute("SELECT body FROM notes ORDER BY id").fetchall()]


def test_a_lone_write_commits_all_or_nothing_and_gives_its_rows(target: str) -> None:
    db = database(target)
    with db.write() as tx:
        tx.execute(TABLE)
    written = db.write_one(
        "INSERT INTO notes (id, body) VALUES (?, ?), (?, ?) RETURNING id", (1, "牛乳", 2, "卵")
    )
    assert sorted(r[0] for r in written.fetchall()) == [1, 2] and written.rowcount == 2
    assert db.write_one("UPDATE notes SET body = ? WHERE id = ?", ("パン", 3)).rowcount == 0
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.UniqueViolation)):
        db.write_one("INSERT INTO notes (id, body) VALUES (?, ?), (?, ?)", (3, "豆腐", 1, "again"))
    assert _bodies(target) == ["牛乳", "卵"]  # the first row of the failed statement is not kept either


def test_inside_a_write_it_is_part_of_that_transaction(target: str) -> None:
    db = database(target)
    with db.write() as tx:
        tx.execute(TABLE)
    with pytest.raises(RuntimeError), db.write() as tx:
        tx.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "first"))
        db.write_one("INSERT INTO notes (id, body) VALUES (?, ?)", (2, "second"))
        assert _bodies(target) == ["first", "second"]  # this thread reads its own transaction
        raise RuntimeError("the transaction fails after both")
    assert _bodies(target) == []


def test_work_attached_to_the_next_write_commits_with_it(target: str) -> None:
    db = database(target)
    with db.write() as tx:
        tx.execute(TABLE)

    def audit(tx: object) -> None:
        tx.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (9, "audit"))  # type: ignore[attr-defined]

    with with_next_write(db, audit) as attached:
        db.write_one("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "the change"))
    assert attached.committed
    assert _bodies(target) == ["the change", "audit"]


def test_on_postgresql_a_lone_write_is_one_statement_on_the_wire(pg_url: str) -> None:
    with counting(pg_url) as (url, statements):
        db = database(url)
        with db.write() as tx:
            tx.execute(TABLE)
        statements.mark()
        db.write_one("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "牛乳"))
        sent = [s.sql.strip().split()[0].upper() for s in statements.snapshot()]
        assert sent == ["INSERT"], statements.report()
        statements.mark()
        with db.write() as tx:  # beside it, what write() sends for the same row
            tx.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (2, "卵"))
        assert [s.sql.strip().split()[0].upper() for s in statements.snapshot()] == [
            "BEGIN",
            "INSERT",
            "COMMIT",
        ]
    assert _bodies(pg_url) == ["牛乳", "卵"]
