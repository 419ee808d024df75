"""Web sign-in accounts: argon2 passwords, hashed session tokens, the persistent login rate limit,
and the CLI commands that add members and set their passwords."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from shitsuji.errors import UserInputError
from shitsuji.store import database, open_database
from shitsuji.web import Accounts
from shitsuji.web._accounts import MAX_FAILURES

from .conftest import Cli, Clock


@pytest.fixture
def accounts(target: str, clock: Clock) -> Accounts:
    return Accounts(database(target), clock=clock)


def test_passwords_are_argon2_hashes_and_verify(accounts: Accounts, target: str) -> None:
    accounts.set_password("futari", "wife", "紅茶とケーキ123")
    [stored] = open_database(target).execute("SELECT hash FROM member_passwords").fetchall()
    assert stored[0].startswith("$argon2id$") and "紅茶" not in stored[0]
    assert accounts.verify("futari", "wife", "紅茶とケーキ123")
    assert not accounts.verify("futari", "wife", "紅茶とケーキ124")
    assert not accounts.verify("futari", "husband", "紅茶とケーキ123")  # no password set
    with pytest.raises(UserInputError, match="too short"):
        accounts.set_password("futari", "wife", "short")


def test_sessions_are_stored_hashed_expire_and_end_on_password_change(
    accounts: Accounts, target: str, clock: Clock
) -> None:
    accounts.set_password("futari", "wife", "password-1")
    token, session = accounts.start_session("futari", "wife")
    assert accounts.session(token) == session and session.csrf
    rows = open_database(target).execute("SELECT token_hash FROM web_sessions").fetchall()
    assert rows and token not in rows[0][0]
    assert accounts.session("not-a-token") is None and accounts.session(None) is None
    accounts.set_password("futari", "wife", "password-2")
    assert accounts.session(token) is None
    token, _ = accounts.start_session("futari", "wife")
    clock.advance(days=31)
    assert accounts.session(token) is None
    token, _ = accounts.start_session("futari", "wife")
    accounts.end_session(token)
    assert accounts.session(token) is None


def test_login_failures_block_for_the_window_and_survive_a_restart(
    accounts: Accounts, target: str, clock: Clock
) -> None:
    keys = ["member:futari/wife", "addr:127.0.0.1"]
    for _ in range(4):
        assert accounts.begin_attempt(keys).retry_after == 0  # each one counts until released
    assert accounts.retry_after(keys) == 0
    fifth = accounts.begin_attempt(keys)
    assert fifth.retry_after == 0 and len(fifth.rowids) == 2
    assert 0 < accounts.retry_after(keys) <= 15 * 60 + 1
    refused = accounts.begin_attempt(keys)
    assert refused.rowids == () and 0 < refused.retry_after <= 15 * 60 + 1
    assert Accounts(database(target), clock=clock).retry_after(["addr:127.0.0.1"]) > 0  # kept in the database
    clock.advance(minutes=16)
    assert accounts.retry_after(keys) == 0


def test_a_successful_attempt_is_released(accounts: Accounts) -> None:
    keys = ["member:futari/wife", "addr:127.0.0.1"]
    for _ in range(4):
        accounts.begin_attempt(keys)
    accounts.succeeded(accounts.begin_attempt(keys), clear=keys[:1])
    assert accounts.retry_after(keys[:1]) == 0  # the member starts afresh
    assert accounts.begin_attempt(keys[1:]).retry_after == 0  # the address keeps its 4 failures: 5th allowed
    assert accounts.retry_after(keys[1:]) > 0


def test_add_member_and_set_password_from_the_cli(cli: Cli, db_path: Path) -> None:
    assert cli("household", "init", "--name", "futari", "--member", "wife").code == 0
    added = cli(
        "household", "add-member", "husband", "--password-stdin", "--json", stdin="夫のパスワードです\n"
    )
    assert added.code == 0, added.err
    assert added.json()["members"] == ["wife", "husband"] and added.json()["password_set"] is True
    assert Accounts(database(db_path)).verify("futari", "husband", "夫のパスワードです")
    again = cli("household", "add-member", "husband", "--no-password")
    assert again.code == 1 and "already a member" in again.err
    short = cli("household", "add-member", "child", "--password-stdin", stdin="abc\n")
    assert short.code == 1 and "too short" in short.err
    guest = cli("household", "add-member", "guest", "--no-password", "--json").json()
    assert guest["members"] == ["wife", "husband", "guest"]  # the refused child was not added
    assert guest["password_set"] is False

    assert (
        cli("household", "set-password", "wife", "--password-stdin", stdin="妻のパスワードです\n").code == 0
    )
    assert Accounts(database(db_path)).verify("futari", "wife", "妻のパスワードです")
    stranger = cli("household", "set-password", "tanaka", "--password-stdin", stdin="whatever-123\n")
    assert stranger.code == 1 and "not a member" in stranger.err and "add-member" in stranger.err


def test_attempts_racing_in_threads_reserve_no_more_than_the_limit(target: str, clock: Clock) -> None:
    """Each thread its own connection: PostgreSQL's read committed transactions overlap for real."""
    keys = ["member:futari/wife", "addr:127.0.0.1"]
    start = threading.Barrier(16, timeout=60)  # a thread that fails breaks the barrier: no hang
    everyone = [Accounts(database(target), clock=clock) for _ in range(16)]

    def attempt(i: int) -> int:
        start.wait()
        return everyone[i].begin_attempt(keys[::-1] if i % 2 else keys).retry_after

    with ThreadPoolExecutor(16) as pool:
        waits = list(pool.map(attempt, range(16)))
    assert waits.count(0) == MAX_FAILURES and all(w > 0 for w in waits if w)


def test_a_reset_on_the_server_removes_the_line_link_and_is_the_members_own_audit_row(
    cli: Cli, db_path: Path
) -> None:
    from shitsuji.audit import AuditLog
    from shitsuji.line import LineLinks
    from shitsuji.privacy import Viewer

    assert cli("household", "init", "--name", "futari", "--member", "wife", "--member", "husband").code == 0
    links = LineLinks(database(db_path))
    assert links.redeem("U" + "a" * 32, links.new_code("futari", "wife")) is not None
    reset = cli("household", "set-password", "wife", "--password-stdin", "--json", stdin="atarashii-pass\n")
    assert reset.code == 0 and reset.json()["line_unlinked"] == 1
    assert links.of_member("futari", "wife") is None  # a lost phone no longer speaks for her
    log = AuditLog(database(db_path))
    assert [e.action for e in log.events(viewer=Viewer("futari", "wife"))][:2] == [
        "line.unlinked",
        "password.set",
    ]
    assert not [
        e for e in log.events(viewer=Viewer("futari", "husband")) if e.action.startswith(("line", "pass"))
    ]
    assert links.redeem("U" + "a" * 32, links.new_code("futari", "wife")) is not None
    kept = cli(
        "household",
        "set-password",
        "wife",
        "--password-stdin",
        "--keep-line",
        "--json",
        stdin="mou-ichido-pass\n",
    )
    assert kept.json()["line_unlinked"] == 0 and links.of_member("futari", "wife") is not None
    links.close()
    log.close()
