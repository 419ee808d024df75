"""SQLite under threads: one connection held by a thread's lock through COMMIT (what
``SQLiteDatabase`` does) against a connection per thread (writes still queued on the lock).

    .venv/bin/python scripts/bench_sqlite_modes.py

Four threads, each 400 times: one write transaction, then two reads. Prints the wall time and the
median and p99 of one write+reads, three rounds each, alternating.
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shitsuji.audit import AUDIT_SCHEMA
from shitsuji.store import SQLiteDatabase, open_database
from shitsuji.store._api import Result

INSERT = "INSERT INTO audit_events (at, actor, action) VALUES ('t', 'a', 'x')"


class PerThread(SQLiteDatabase):
    """The other choice: each thread its own connection (WAL snapshots keep them apart)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._own = threading.local()

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._own, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.where, timeout=5, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA synchronous = NORMAL")
            self._own.conn = conn
        return conn

    def execute(self, sql: str, params: Any = ()) -> Result:
        cur = self._connection().execute(sql, params)
        return Result(cur.fetchall() if cur.description else [], cur.rowcount)

    @contextmanager
    def write(self) -> Iterator[Any]:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")


def run(
    make: Callable[[str], SQLiteDatabase], each: int = 400, threads: int = 4
) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.db")
        open_database(path, AUDIT_SCHEMA).close()
        db = make(path)
        took: list[float] = []

        def work() -> None:
            for _ in range(each):
                start = time.perf_counter()
                with db.write() as tx:
                    tx.execute(INSERT)
                db.execute("SELECT count(*) FROM audit_events WHERE actor = 'a'").fetchone()
                db.execute("SELECT * FROM audit_events ORDER BY seq DESC LIMIT 20").fetchall()
                took.append(time.perf_counter() - start)

        workers = [threading.Thread(target=work) for _ in range(threads)]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        total = time.perf_counter() - start
        took.sort()
        return total, statistics.median(took) * 1e3, took[int(len(took) * 0.99)] * 1e3


if __name__ == "__main__":
    for n in range(3):
        for name, make in (("one connection", SQLiteDatabase), ("per thread", PerThread)):
            total, median, p99 = run(make)
            print(f"{name:15s} round {n}: {total:.2f} s, one op median {median:.2f} ms, p99 {p99:.2f} ms")
