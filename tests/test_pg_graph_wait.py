"""Finishing a pending vector graph from the command line, on a real PostgreSQL, in real processes:
``shitsuji doctor`` names a pending graph and stops once it is built; ``import --wait-graph`` and
``reindex --graph-only`` leave a valid index where a plain import's exit leaves it pending; Ctrl-C cancels
the build cleanly (pending, still exact); a build's ``parallel_workers`` left by a process killed mid-build
is reset by the next process that writes; a read-only ``doctor`` starts no build."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest

from shitsuji.memory._pg_graph_builds import build_running, leftover_settings
from shitsuji.memory._postgres_store import PostgresMemoryStore
from shitsuji.memory._transfer import import_file
from shitsuji.store import Database

from .conftest import Cli, Clock
from .test_pg_graph_builds import _building, _index, _lines, _old_snapshot, _store, _until

_TABLE = "memory_vectors_1"
#: The commands' connections carry this name (libpq's PGAPPNAME): a build seen is theirs, not this process's.
_APP = "shitsuji-graph-wait-command"


def _pending(pg_url: str, clock: Clock) -> Database:
    """A database whose graph is pending: 400 vectors in one scope, the build cut short."""
    db, store, engine = _store(pg_url, clock)
    with _old_snapshot(pg_url) as old, psycopg.connect(pg_url, autocommit=True) as admin:
        import_file(engine, _lines(400))
        pid = _until(lambda: _building(db), "the background build under way")
        admin.execute("SELECT pg_cancel_backend(%s)", (pid,))
        assert store.wait_for_graphs(600)
        old.rollback()
    assert store.graphs_pending()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert not build_running(conn)  # this process builds nothing now: a build seen later is a command's
    return db


def _commands_build(db: Database) -> int | None:
    """The backend pid of a command's graph build (``CREATE INDEX CONCURRENTLY`` on the vector table) under
    way in this database, if one is. Not any index a command builds: its opening migrates the app's other
    tables, and under load a poll caught one of those plain ``CREATE INDEX`` 0.7 s before the graph build —
    the table's setting not yet made, a Ctrl-C sent to an opening."""
    row = db.execute(
        "SELECT p.pid FROM pg_stat_progress_create_index p JOIN pg_stat_activity a ON a.pid = p.pid "
        "WHERE p.datname = current_database() AND a.application_name = ? "
        "AND p.command = 'CREATE INDEX CONCURRENTLY' AND p.relid = to_regclass(?)",
        (_APP, _TABLE),
    ).fetchone()
    return None if row is None else int(row[0])


def _env(pg_url: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
    return env | {
        "SHITSUJI_DATABASE_URL": pg_url,
        "SHITSUJI_EMBEDDER": "hash",
        "SHITSUJI_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "200",
        "PGAPPNAME": _APP,
    }


def _shitsuji(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shitsuji", *args], env=env, capture_output=True, text=True, timeout=600
    )


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shitsuji", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _graph_line(env: dict[str, str]) -> dict[str, Any]:
    done = _shitsuji(env, "doctor", "--json")
    checks = json.loads(done.stdout)["checks"]
    return next(c for c in checks if c["name"] == "vector graph")


def _small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.jsonl"
    rows = [{"content": f"小さなメモ {i}: the tea shop", "scope": "small"} for i in range(5)]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


def test_doctor_names_a_pending_graph_and_reindex_graph_only_builds_it(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    db = _pending(pg_url, clock)
    env = _env(pg_url, tmp_path)
    line = _graph_line(env)
    assert line["status"] == "warn" and "1 scope(s), 400 vectors" in line["detail"], line
    assert "shitsuji reindex --graph-only" in line["fix"]
    built = _shitsuji(env, "reindex", "--graph-only")
    assert built.returncode == 0, built.stderr
    assert "vector search graph built" in built.stdout
    assert _index(db) == (True, True)
    with psycopg.connect(pg_url) as conn:
        assert leftover_settings(conn) == []  # the build's setting reset
    line = _graph_line(env)
    assert line["status"] == "ok", line
    again = _shitsuji(env, "reindex", "--graph-only", "--json")
    assert json.loads(again.stdout) == {"graph_built": False, "graph_pending": False}
    db.close()


def _graph_index_oid(db: Database) -> int | None:
    row = db.execute("SELECT to_regclass(?)::oid", (f"{_TABLE}_hnsw",)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def test_a_read_only_doctor_starts_no_graph_build_and_still_reports_it_pending(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    db = _pending(pg_url, clock)
    before = _graph_index_oid(db)
    assert before is not None  # the invalid index the cut-short build left
    seen: list[int] = []
    # an old snapshot: a build the doctor started could not finish before its exit (it would be seen, and
    # its DROP of the invalid index and new CREATE would leave another index in its place); a model endpoint
    # that answers after 2 s: the doctor lives on after its opening of the store (a build has time to show)
    with _old_snapshot(pg_url) as old, _slow_endpoint(2.0) as endpoint:
        doctor = _start(_env(pg_url, tmp_path) | {"SHITSUJI_MODEL_URL": endpoint}, "doctor", "--json")
        try:
            while doctor.poll() is None:
                if (pid := _commands_build(db)) is not None or _commands_lock(db):
                    seen.append(pid or 0)
                time.sleep(0.02)
            out, err = doctor.communicate(timeout=120)
        finally:
            if doctor.poll() is None:  # its pipes closed too: a test failed first leaves none open
                doctor.kill()
                doctor.communicate()
        old.rollback()
    assert not seen, "doctor started a graph build"  # on 0279fba: its opening started one
    assert _graph_index_oid(db) == before and _index(db) in (
        (False, False),
        (False, True),
    )  # the same, pending
    line = next(c for c in json.loads(out)["checks"] if c["name"] == "vector graph")
    assert line["status"] == "warn" and "1 scope(s), 400 vectors" in line["detail"], (line, err)
    db.close()


@contextmanager
def _slow_endpoint(delay_s: float) -> Iterator[str]:
    """A local HTTP server answering every request after ``delay_s`` (the doctor's model endpoint check)."""

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay_s)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_GET

        def log_message(self, *args: Any) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Slow) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()


def _commands_lock(db: Database) -> bool:
    """Whether a command's connection holds (or polls for) the graph-build lock now."""
    row = db.execute(
        "SELECT count(*) FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' "
        "WHERE a.application_name = ? AND a.datname = current_database() "
        "AND (l.pid IS NOT NULL OR a.query LIKE '%advisory_lock%')",
        (_APP,),
    ).fetchone()
    return bool(row and row[0])


def test_import_wait_graph_leaves_the_graph_built_where_a_plain_import_leaves_it_pending(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    db = _pending(pg_url, clock)
    env, small = _env(pg_url, tmp_path), _small_file(tmp_path)
    with _old_snapshot(pg_url) as old:  # the plain import's own build cannot finish before its exit
        plain = _shitsuji(env, "import", str(small), "--json")
        old.rollback()
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["graph_pending"] is True
    assert _index(db) in (None, (False, True), (False, False))  # its exit cancelled the build: pending
    waited = _shitsuji(env, "import", str(small), "--wait-graph")  # before: "No such option"
    assert waited.returncode == 0, waited.stderr
    assert "vector search graph built" in waited.stdout
    assert _index(db) == (True, True)
    db.close()


def test_ctrl_c_while_waiting_cancels_the_build_and_leaves_the_graph_pending(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    db = _pending(pg_url, clock)
    with _old_snapshot(pg_url) as old:
        waiting = _start(_env(pg_url, tmp_path), "reindex", "--graph-only")
        try:
            _until(lambda: _commands_build(db), "the command's own build under way")
            waiting.send_signal(signal.SIGINT)
            out, err = waiting.communicate(timeout=120)
        finally:
            if waiting.poll() is None:  # its pipes closed too: a test failed first leaves none open
                waiting.kill()
                waiting.communicate()
        old.rollback()
    assert waiting.returncode == 130, (out, err)
    assert "graph build cancelled: the graph stays pending" in err
    _until(lambda: _building(db) is None, "the cancelled build gone")
    assert _index(db) in (None, (False, True), (False, False))
    with psycopg.connect(pg_url) as conn:
        assert leftover_settings(conn) == [], err
    db.close()


def test_a_build_outliving_its_killed_process_leaves_parallel_workers_which_the_next_writer_resets(
    pg_url: str, clock: Clock, tmp_path: Path
) -> None:
    db = _pending(pg_url, clock)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        if int(conn.execute("SHOW max_parallel_maintenance_workers").fetchone()[0]) == 0:  # type: ignore[index]
            pytest.skip("the server builds without parallel workers: no setting to leave")
        with _old_snapshot(pg_url) as old:
            doomed = _start(_env(pg_url, tmp_path), "reindex", "--graph-only")
            try:
                pid = _until(lambda: _commands_build(db), "the command's own build under way")
                assert leftover_settings(conn) == [_TABLE]  # set for the build
                doomed.send_signal(signal.SIGKILL)  # no atexit, no reset sent
                doomed.communicate(timeout=60)
            finally:
                if doomed.poll() is None:  # its pipes closed too: a test failed first leaves none open
                    doomed.kill()
                    doomed.communicate()
            old.rollback()
        # the server finishes the statement it was given; the reset never comes
        _until(lambda: _building(db) is None, "the orphaned build ended")
        assert pid and leftover_settings(conn) == [_TABLE]
        reader = PostgresMemoryStore(db)  # the next opening: a reader's leaves it (it writes nothing)
        assert reader.wait_for_graphs(0) and leftover_settings(conn) == [_TABLE]
        reader.build_graphs()  # a writer's first write, `serve`, `reindex --graph-only`
        assert reader.wait_for_graphs(600)
        assert leftover_settings(conn) == []
    db.close()


def test_on_sqlite_the_graph_options_have_nothing_to_wait_for(cli: Cli, tmp_path: Path) -> None:
    assert cli("household", "init", "--name", "家", "--member", "a").code == 0
    imported = cli("import", str(_small_file(tmp_path)), "--wait-graph", "--json")
    assert imported.code == 0, imported.err
    assert imported.json()["added"] == 5 and imported.json()["graph_pending"] is False
    only = cli("reindex", "--graph-only")
    assert only.code == 0 and "no vector search graph is pending" in only.out
    doctor = cli("doctor", "--json")
    assert all(c["name"] != "vector graph" for c in doctor.json()["checks"])  # SQLite: no graph to wait for
