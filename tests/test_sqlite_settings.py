"""The SQLite connection settings (the memory map) are in effect wherever a ``Database`` is read:
its first connection, worker threads, the loop's worker pool, a transaction, side databases."""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from shitsuji._offload import off_loop
from shitsuji.memory import open_store
from shitsuji.store import Database, close_databases, database, open_database
from shitsuji.store import sqlite_settings as settings
from shitsuji.store._sqlite_settings import MMAP_32BIT, MMAP_BYTES

NAMES = ("mmap_size",)


def read_back(db: Database) -> dict[str, int]:
    return {name: int(db.execute(f"PRAGMA {name}").fetchone()[0]) for name in NAMES}


def test_this_host_gets_the_full_settings() -> None:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert settings() == {"mmap_size": min(MMAP_BYTES, ram // 8)}  # a 64-bit test host


def test_a_32_bit_or_small_host_gets_a_small_map() -> None:
    assert settings(bits64=False, ram=None)["mmap_size"] == MMAP_32BIT
    assert settings(bits64=False, ram=128 << 20)["mmap_size"] == 16 << 20  # 1/8 of the RAM
    assert settings(bits64=True, ram=512 << 20)["mmap_size"] == 64 << 20
    assert settings(bits64=True, ram=None)["mmap_size"] == MMAP_BYTES  # RAM not known: no cap


def test_settings_are_in_effect_on_every_thread_that_reads(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    db = database(path)
    try:
        wanted = settings()
        assert read_back(db) == wanted
        seen: list[dict[str, int]] = []
        worker = threading.Thread(target=lambda: seen.append(read_back(db)))
        worker.start()
        worker.join(timeout=60)
        with ThreadPoolExecutor(4) as pool:
            seen.extend(pool.map(lambda _: read_back(db), range(8)))

        async def on_the_loop_s_workers() -> list[dict[str, int]]:
            return list(await asyncio.gather(*(off_loop(read_back, db) for _ in range(4))))

        seen.extend(asyncio.run(on_the_loop_s_workers()))
        with db.write() as tx:  # inside a transaction, on the transaction's own connection
            seen.append({n: int(tx.execute(f"PRAGMA {n}").fetchone()[0]) for n in NAMES})
        assert len(seen) == 14 and all(s == wanted for s in seen)
    finally:
        close_databases()


def test_side_databases_and_a_store_s_database_get_them_too(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = open_store(str(path))  # the memory store, on the process's database for the file
    try:
        assert read_back(database(path)) == settings()
        side = open_database(database(path).sibling("-inbox"))  # the LINE inbox's file
        try:
            assert read_back(side) == settings()
        finally:
            side.close()
    finally:
        store.close()
        close_databases()
