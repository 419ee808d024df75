"""``shitsuji migrate``: a SQLite database copied into PostgreSQL and back, verified, refused over data,
resumed after a kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import psycopg
from pydantic import Field

from shitsuji.agent import Conversations, Proposals, ToolContext, tool
from shitsuji.audit import AuditEvent, AuditLog
from shitsuji.household import HOUSEHOLD_SCHEMA, HouseholdStore
from shitsuji.line import Inbox, LineLinks, inbox_path
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import Migration, Schema, database, open_database
from shitsuji.store._copy import checksum
from shitsuji.web._accounts import Accounts
from shitsuji.web._invites import Invitations

from .conftest import Cli

WIFE = ToolContext(
    deps=None, user="wife", scope="household/futari/user/wife", channel="app", household="futari"
)


@tool(effect="write", summary=lambda a: f"{a['amount']}円の支出を記録")
def add_expense(ctx: ToolContext[None], amount: Annotated[int, Field(gt=0)]) -> str:
    """Record an expense."""
    return "ok"


def populate(db: Path) -> None:
    """A lived-in household database, written through the stores."""
    memory = open_store(db)
    engine = MemoryEngine(memory, HashEmbedder())
    for n, text in enumerate(["紅茶はミルクティーが好き", "ゴミの日は月曜と木曜", "Allergic to peanuts"]):
        engine.remember(
            text, f"household/futari/user/{'wife' if n % 2 else 'husband'}", importance=0.25 * (n + 1)
        )
    gone = engine.remember("古い電話番号は 090-0000-0000", "household/futari").memory
    engine.forget(gone.id)
    engine.recall("飲み物", "household/futari/user/wife")
    memory.close()
    homes = HouseholdStore(database(db))
    homes.create("futari", ["wife", "husband"], time_zone="Asia/Tokyo")
    milk = homes.add_shopping_item("futari", "牛乳", 2, by="wife")
    homes.add_shopping_item("futari", "卵", by="husband")
    homes.check_shopping_item("futari", milk.id, by="husband")
    homes.add_todo("futari", "粗大ごみの予約", by="wife")
    homes.add_expense("futari", 1200, "food", by="wife")
    homes.close()
    talks = Conversations(database(db))
    talk = talks.add_said(talks.start("futari", "wife", "app"), "牛乳買っといて")
    talks.add_turn(
        talk,
        [{"role": "assistant", "content": "追加しました"}],
        untrusted=False,
        summary="",
        folded_upto=0,
        summary_untrusted=False,
    )
    talks.close()
    log = AuditLog(database(db))
    Proposals(database(db), audit=log).propose(add_expense, {"amount": 3000}, WIFE)
    log.record(AuditEvent("tool.ran", "husband", household="futari", channel="line", detail={"n": 1.5}))
    log.close()
    links = LineLinks(database(db))
    links.redeem("U_wife", links.new_code("futari", "wife"))
    links.close()
    inbox = Inbox(database(inbox_path(str(db))))
    inbox.accept(
        {"webhookEventId": f"01EV{n}", "type": "message", "source": {"type": "user", "userId": "U_wife"}}
        for n in range(3)
    )
    inbox.close()
    accounts = Accounts(database(db))
    accounts.set_password("futari", "wife", "妻のパスワードです")
    accounts.start_session("futari", "wife")
    accounts.close()
    Invitations(database(db)).create("futari", "husband", by="wife")


def sums(report: dict[str, Any]) -> dict[str, tuple[int, str]]:
    return {t["table"]: (t["source_rows"], t["source_checksum"]) for t in report["tables"]}


def db_path_max_seq(db: Path) -> int:
    return int(open_database(db).execute("SELECT max(seq) FROM embeddings").fetchone()[0])


def test_a_database_goes_to_postgresql_and_back_unchanged(cli: Cli, db_path: Path, pg_url: str) -> None:
    populate(db_path)
    open_database(pg_url, MEMORY_SCHEMA, HOUSEHOLD_SCHEMA).close()  # the app opened it: seeded rows only
    there = cli("migrate", "--to", pg_url, "--json")
    assert there.code == 0, there.err
    report = there.json()
    assert report["ok"] and not report["resumed"]
    assert all(t["match"] for t in report["tables"])
    counts = {t["table"]: t["target_rows"] for t in report["tables"]}
    assert counts["memories"] == 4 and counts["embeddings"] >= 3 and counts["shopping_items"] == 2
    assert counts["line_events"] == 3 and counts["conversation_messages"] == 2 and counts["proposals"] == 1

    # the app reads the same data from PostgreSQL
    sqlite_items = HouseholdStore(database(db_path)).shopping_items("futari")
    assert HouseholdStore(database(pg_url)).shopping_items("futari") == sqlite_items
    assert Accounts(database(pg_url)).verify("futari", "wife", "妻のパスワードです")
    assert Proposals(database(pg_url)).list(household="futari") == Proposals(database(db_path)).list(
        household="futari"
    )
    talk = Conversations(database(db_path)).latest("futari", "wife", "app")
    assert talk is not None and Conversations(database(pg_url)).rows(talk.id) == Conversations(
        database(db_path)
    ).rows(talk.id)
    assert LineLinks(database(pg_url)).get("U_wife") == LineLinks(database(db_path)).get("U_wife")
    assert Inbox(database(pg_url)).counts() == Inbox(database(inbox_path(str(db_path)))).counts()
    assert [e.seq for e in AuditLog(database(pg_url)).events()] == [
        e.seq for e in AuditLog(database(db_path)).events()
    ]
    # new rows get fresh keys after the copied ones (the identity sequences were moved on)
    last = max(e.seq or 0 for e in AuditLog(database(db_path)).events())
    pg = open_database(pg_url)
    with pg.write() as tx:
        added = tx.execute(
            "INSERT INTO audit_events (at, actor, action) VALUES ('now', 'x', 'y') RETURNING seq, rowid"
        )
        assert added.fetchone() == (last + 1, last + 1)
        tx.execute("DELETE FROM audit_events WHERE actor = 'x'")
    assert pg.execute("SELECT to_regclass('copy_progress')").fetchone()[0] is None
    # the vector rows were derived as the copy finished: PostgreSQL recalls what SQLite does
    derived = pg.execute("SELECT derived_seq FROM memory_vector_state").fetchone()[0]
    assert derived == db_path_max_seq(db_path) > 0

    def recall_from(target: str | Path) -> list[tuple[str, float]]:
        hits = MemoryEngine(open_store(str(target)), HashEmbedder()).recall(
            "紅茶", "household/futari/user/husband"
        )
        return [(h.memory.content, round(h.score, 6)) for h in hits]

    assert recall_from(pg_url) == recall_from(db_path)

    back = db_path.parent / "back.db"
    open_store(back).close()  # a new database: only the rows its migrations seed, so still empty
    home = cli("--db", str(back), "migrate", "--from", pg_url, "--json")
    assert home.code == 0, home.err
    assert sums(home.json()) == sums(report)
    assert HouseholdStore(database(back)).shopping_items("futari") == sqlite_items
    assert (back.parent / "back.db-line-inbox").exists()

    def recall(db: Path) -> list[tuple[str, float]]:
        hits = MemoryEngine(open_store(db), HashEmbedder()).recall("紅茶", "household/futari/user/husband")
        return [(h.memory.content, round(h.score, 6)) for h in hits]

    assert recall(back) == recall(db_path) and recall(back)[0][0] == "紅茶はミルクティーが好き"


def test_a_target_with_data_is_refused_and_left_untouched(cli: Cli, db_path: Path, pg_url: str) -> None:
    populate(db_path)
    HouseholdStore(database(pg_url)).create("tonari", ["a"])
    refused = cli("migrate", "--to", pg_url)
    assert refused.code == 1
    assert "already holds shitsuji data" in refused.err and "households: 1 rows" in refused.err
    pg = open_database(pg_url)
    assert pg.execute("SELECT name FROM households").fetchall() == [("tonari",)]
    assert pg.execute("SELECT to_regclass('memories'), to_regclass('copy_progress')").fetchone() == (
        None,
        None,
    )

    # and back: an existing SQLite file with rows is not overwritten either
    assert cli("--db", str(db_path), "migrate", "--from", pg_url).code == 1
    assert [h.name for h in HouseholdStore(database(db_path)).households()] == ["futari"]


def test_clear_errors_in_one_line(cli: Cli, tmp_path: Path, pg_url: str) -> None:
    missing = cli("--db", str(tmp_path / "nothing.db"), "migrate", "--to", pg_url)
    assert missing.code == 1 and "no shitsuji database at" in missing.err
    assert not (tmp_path / "nothing.db").exists()
    assert "needs a postgresql:// URL" in cli("migrate", "--to", "mysql://x/y").err
    assert "--to postgresql://… or --from" in cli("migrate").err
    (tmp_path / "here.db").touch()
    down = cli(
        "--db", str(tmp_path / "here.db"), "migrate", "--to", f"postgresql://u:s3cret@/x?host={tmp_path}/no"
    )
    assert down.code == 1 and "cannot reach PostgreSQL at postgresql://u:***@" in down.err
    assert "s3cret" not in down.err and len(down.err.strip().splitlines()) == 1


def test_one_copy_into_a_database_at_a_time(cli: Cli, db_path: Path, pg_url: str) -> None:
    populate(db_path)
    with psycopg.connect(pg_url, autocommit=True) as other:  # as a running migrate holds it
        other.execute("SELECT pg_advisory_lock(%s)", (0x5348_4943,))
        busy = cli("migrate", "--to", pg_url)
        assert busy.code == 1 and "another shitsuji migrate is copying into" in busy.err
        other.execute("SELECT pg_advisory_unlock(%s)", (0x5348_4943,))
    assert cli("migrate", "--to", pg_url).code == 0


def test_a_copy_killed_mid_way_resumes_without_duplicates_or_gaps(
    cli: Cli, db_path: Path, pg_url: str
) -> None:
    populate(db_path)
    source = open_database(db_path)
    with source.write() as tx:
        tx.executemany(
            "INSERT INTO audit_events (at, actor, action, detail) VALUES (?, ?, ?, ?)",
            [(f"2026-01-01T00:00:{n % 60:02d}", "wife", "bulk", f'{{"n": {n}}}') for n in range(20000)],
        )
    source.close()
    env = {**os.environ, "SHITSUJI_DB": str(db_path), "SHITSUJI_EMBEDDER": "hash"}
    env.pop("SHITSUJI_DATABASE_URL", None)
    run = [sys.executable, "-m", "shitsuji", "migrate", "--to", pg_url, "--batch-size", "20", "--json"]
    child = subprocess.Popen(run, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    copied = _wait_for_progress(pg_url, "audit_events", at_least=2000, child=child)
    child.send_signal(signal.SIGKILL)
    child.wait()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT count(*) FROM audit_events").fetchone()
        assert rows is not None and copied <= rows[0] < 20002  # the killed copy committed part of it

    # someone wrote into a table the copy has not reached yet: resuming refuses to clear it
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            'INSERT INTO web_sessions (token_hash, household, "user", csrf, created_at, expires_at) '
            "VALUES ('t', 'futari', 'wife', 'c', 'now', 'later')"
        )
        intruded = cli("migrate", "--to", pg_url)
        assert intruded.code == 1 and "web_sessions got 1 rows from elsewhere" in intruded.err
        assert conn.execute("SELECT count(*) FROM web_sessions").fetchone() == (1,)
        conn.execute("DELETE FROM web_sessions")
        # that run resumed audit_events before it stopped: each row once, none again, none left out
        progress = conn.execute("SELECT copied FROM copy_progress WHERE table_name = 'audit_events'")
        assert progress.fetchone() == (20002,)
        assert conn.execute("SELECT count(*), count(DISTINCT rowid) FROM audit_events").fetchone() == (
            20002,
            20002,
        )

    # the source changed under the copy (a row already copied): resuming verifies, finds it, says so
    source = open_database(db_path)
    with source.write() as tx:
        tx.execute("UPDATE audit_events SET actor = 'husband' WHERE seq = 1")
    changed = cli("migrate", "--to", pg_url, "--json")
    assert changed.code == 1 and not changed.json()["ok"]
    assert [t["table"] for t in changed.json()["tables"] if not t["match"]] == ["audit_events"]
    with source.write() as tx:
        tx.execute("UPDATE audit_events SET actor = 'wife' WHERE seq = 1")
    source.close()

    again = cli("migrate", "--to", pg_url, "--json")
    assert again.code == 0, again.err
    report = again.json()
    assert report["ok"] and report["resumed"] and report["copied"] == 0
    audit = next(t for t in report["tables"] if t["table"] == "audit_events")
    assert audit["target_rows"] == audit["source_rows"] == 20000 + 2  # bulk, and populate's two events
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(DISTINCT rowid), count(*) FROM audit_events").fetchone() == (
            20002,
            20002,
        )
        assert conn.execute("SELECT to_regclass('copy_progress')").fetchone() == (None,)


def _wait_for_progress(url: str, table: str, *, at_least: int, child: subprocess.Popen[bytes]) -> int:
    """Rows of ``table`` the copy has committed once at least ``at_least`` are (read from its progress table)."""
    deadline = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            assert child.poll() is None, "the copy ended before it could be killed"
            if conn.execute("SELECT to_regclass('copy_progress')").fetchone() != (None,):
                row = conn.execute(
                    "SELECT copied FROM copy_progress WHERE table_name = %s", (table,)
                ).fetchone()
                if row is not None and row[0] >= at_least:
                    return int(row[0])
            time.sleep(0.01)
    raise AssertionError(f"no progress on {table} within 60 s")


def test_the_same_values_give_the_same_checksum_on_both_engines(tmp_path: Path, pg_url: str) -> None:
    demo = Schema(
        "demo",
        (
            Migration(
                "9001_demo", "CREATE TABLE demo (k INTEGER PRIMARY KEY, i INTEGER, f REAL, t TEXT, b BLOB)"
            ),
        ),
    )
    rows = [
        (1, 2**62, 0.1, "紅茶はミルクティー🍵", b"\x00\xff"),
        (2, -7, 1e-300, "", b""),
        (3, None, 1.0, None, None),
        (40, 0, -0.0, "a'b\"c\n", bytes(range(256))),
    ]
    digests = []
    for target in (str(tmp_path / "demo.db"), pg_url):
        db = open_database(target, demo)
        with db.write() as tx:
            tx.executemany("INSERT INTO demo (k, i, f, t, b) VALUES (?, ?, ?, ?, ?)", rows)
        digests.append(checksum(db, "demo", ["k", "i", "f", "t", "b"]))
        with db.write() as tx:  # an empty text is not a null
            tx.execute("UPDATE demo SET t = NULL WHERE k = 2")
        digests.append(checksum(db, "demo", ["k", "i", "f", "t", "b"]))
        db.close()
    assert digests[0] == digests[2] and digests[1] == digests[3]
    assert digests[0][0] == 4 and digests[0][1] != digests[1][1]
