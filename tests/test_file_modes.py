"""Files shitsuji creates are its owner's alone (issue 19): the database, its WAL and shared-memory
files, the LINE inbox and vector snapshots are 0600; a data folder shitsuji makes is 0700."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from shitsuji.audit import AuditEvent, AuditLog
from shitsuji.line import LINE_INBOX_SCHEMA, inbox_path
from shitsuji.memory._mapped import write_arrays
from shitsuji.store import database


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """A usual umask (0022): what shitsuji creates must not follow it."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_database_its_companions_and_the_inbox_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "shitsuji"
    db = database(folder / "shitsuji.db")
    AuditLog(db).record(AuditEvent(action="test.wrote", actor="cli"))  # the WAL and SHM exist now
    inbox = database(inbox_path(str(folder / "shitsuji.db")))
    inbox.ensure(LINE_INBOX_SCHEMA)
    made = [folder / "shitsuji.db", folder / "shitsuji.db-wal", folder / "shitsuji.db-shm"]
    made.append(Path(inbox_path(str(folder / "shitsuji.db"))))
    assert {p.name: mode(p) for p in made} == {p.name: 0o600 for p in made}
    assert mode(folder) == 0o700 and mode(folder.parent) == 0o700  # both made by shitsuji


def test_an_existing_folder_is_left_alone_and_an_old_database_is_tightened(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    old = tmp_path / "old.db"
    old.touch(mode=0o644)
    database(old)
    assert mode(old) == 0o600 and mode(tmp_path) == 0o755


def test_snapshots_are_private(tmp_path: Path) -> None:
    target = tmp_path / "snapshots" / "scope.vec"
    write_arrays(target, {"k": 1}, {"vectors": np.zeros((2, 3), dtype=np.float32)})
    assert mode(target) == 0o600 and mode(target.parent) == 0o700
