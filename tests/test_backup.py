"""``shitsuji backup`` / ``restore-backup``: everything in one verified file, taken while a writer runs,
restored into a fresh folder table for table; refused over existing data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from shitsuji.line import inbox_path
from shitsuji.store import open_database
from shitsuji.store._copy import checksum, columns, layout

from .conftest import Cli
from .test_migrate_copy import populate

WRITER = """
import sys, time
from pathlib import Path
from shitsuji.household import HouseholdStore
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database
db, stop = sys.argv[1], Path(sys.argv[2])
homes, store = HouseholdStore(database(db)), open_store(db)
engine = MemoryEngine(store, HashEmbedder())
n = 0
while not stop.exists():
    homes.add_shopping_item("futari", f"品物{n}", by="wife")
    engine.remember(f"メモ {n}: 今日は{n}回目の書き込み", "household/futari/user/wife")
    n += 1
    print(n, flush=True)
"""


def _tables(target: str, *, backup: bool = False) -> dict[str, tuple[int, str]]:
    """Rows and checksum of every table; a backup holds the LINE inbox in its one file."""
    from shitsuji.cli._migrate import _schemas

    main, inbox = _schemas()
    found: dict[str, tuple[int, str]] = {}
    for place, schemas in ((target, main), (target if backup else inbox_path(target), (inbox,))):
        db = open_database(place)
        try:
            for table in layout(schemas):
                names = sorted(columns(db, db.dialect, table.name))
                if table.name != "copy_progress" and names:
                    found[table.name] = checksum(db, table.name, names)
        finally:
            db.close()
    return found


def test_backup_while_writing_then_restore_into_a_fresh_folder(
    cli: Cli, db_path: Path, tmp_path: Path
) -> None:
    populate(db_path)
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db_path), str(stop)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "1"  # the writer is writing
        backup = tmp_path / "backups" / "shitsuji-backup.db"
        backup.parent.mkdir()
        made = cli("backup", str(backup), "--json")
        assert made.code == 0, made.err
        assert made.json()["ok"] and backup.stat().st_mode & 0o777 == 0o600
    finally:
        stop.touch()
        writer.wait(timeout=120)
        writer.stdout.close()
    assert not list(backup.parent.glob(".*partial*"))

    fresh = tmp_path / "fresh" / "restored.db"
    fresh.parent.mkdir()
    restored = cli("--db", str(fresh), "restore-backup", str(backup), "--json")
    assert restored.code == 0, restored.err
    assert restored.json()["ok"]
    got = _tables(str(fresh))
    assert got == _tables(str(backup), backup=True)
    assert got["line_events"][0] == 3 and got["shopping_items"][0] >= 3 and got["memories"][0] >= 5

    # what the restored database answers, read through the app's own commands
    items = cli("--db", str(fresh), "household", "shopping", "--json").json()
    assert {"牛乳", "卵"} <= {i["name"] for i in items}


def test_backup_and_restore_refuse_to_overwrite(cli: Cli, db_path: Path, tmp_path: Path) -> None:
    populate(db_path)
    taken = tmp_path / "b.db"
    taken.write_bytes(b"someone else's file")
    refused = cli("backup", str(taken))
    assert refused.code == 1 and "exists" in refused.err and taken.read_bytes() == b"someone else's file"

    good = tmp_path / "good.db"
    assert cli("backup", str(good)).code == 0
    before = _tables(str(db_path))
    onto_data = cli("restore-backup", str(good))
    assert onto_data.code == 1 and "already holds shitsuji data" in onto_data.err
    assert _tables(str(db_path)) == before

    not_backup = cli("--db", str(tmp_path / "new.db"), "restore-backup", str(taken))
    assert not_backup.code == 1 and "not a shitsuji backup" in not_backup.err


def test_a_postgresql_database_backs_up_and_restores(
    cli: Cli, db_path: Path, tmp_path: Path, pg_url: str
) -> None:
    populate(db_path)
    assert cli("migrate", "--to", pg_url).code == 0
    backup = tmp_path / "pg-backup.db"
    made = cli("--database-url", pg_url, "backup", str(backup), "--json")
    assert made.code == 0 and made.json()["ok"], made.err
    fresh = tmp_path / "from-pg.db"
    assert cli("--db", str(fresh), "restore-backup", str(backup)).code == 0
    restored, source = _tables(str(fresh)), _tables(pg_url)
    for table in (
        "memories",
        "shopping_items",
        "line_events",
        "proposals",
        "member_passwords",
        "audit_events",
    ):
        assert restored[table][0] == source[table][0], table
